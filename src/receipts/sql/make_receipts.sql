-- make_receipts: the receipts of granted baskets or checkout orders, each made once
-- (docs/decisions.md, "Receipts"; docs/architecture.md, "Where each rule lives").
--
-- The one place a receipt is made: a checkout booking makes its orders' receipts here in one call
-- (book_orders, p_new), and make_receipt (the grant) makes a batch of one.
-- A source (merchant, kind, source_ref) that has a receipt already answers the id made first, so
-- a retried grant or order keeps its receipt. Answers per source (ord: its position in the input,
-- from 1) the receipt's id.
--
-- p_new: the caller knows every source is new, as a checkout booking does for the orders whose
-- rows it has just inserted (an order's receipt is made only there). Their receipts are written
-- by a plain INSERT, without the conflict arbiter's speculative insertion (a probe of the unique
-- index, a lock and a confirmation record per row: about a sixtieth of a batch of orders' work in
-- the database); a source that had a receipt after all fails the statement instead of answering it.
CREATE OR REPLACE FUNCTION make_receipts(p_id text[], p_merchant_id bigint[], p_kind text,
  p_source_ref text[], p_now timestamptz[], p_new boolean)
RETURNS TABLE (ord integer, receipt_id text) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_made bigint;
BEGIN
  IF p_new THEN
    INSERT INTO receipts (id, merchant_id, kind, source_ref, created_at)
    SELECT u.id, u.merchant_id, p_kind, u.source_ref, u.at
      FROM unnest(p_id, p_merchant_id, p_source_ref, p_now) WITH ORDINALITY
             AS u(id, merchant_id, source_ref, at, ord)
     ORDER BY u.ord;
    RETURN QUERY SELECT u.ord::integer, u.id FROM unnest(p_id) WITH ORDINALITY AS u(id, ord);
    RETURN;
  END IF;
  INSERT INTO receipts (id, merchant_id, kind, source_ref, created_at)
  SELECT u.id, u.merchant_id, p_kind, u.source_ref, u.at
    FROM unnest(p_id, p_merchant_id, p_source_ref, p_now) WITH ORDINALITY
           AS u(id, merchant_id, source_ref, at, ord)
   ORDER BY u.ord
  ON CONFLICT (merchant_id, kind, source_ref) DO NOTHING;
  GET DIAGNOSTICS v_made = ROW_COUNT;
  IF v_made = cardinality(p_id) THEN
    RETURN QUERY SELECT u.ord::integer, u.id FROM unnest(p_id) WITH ORDINALITY AS u(id, ord);
    RETURN;
  END IF;
  -- A source that had its receipt already (or twice in the input) answers the one stored, read
  -- in a statement of its own, which sees it.
  RETURN QUERY
    SELECT u.ord::integer, r.id
      FROM unnest(p_merchant_id, p_source_ref) WITH ORDINALITY AS u(merchant_id, source_ref, ord)
      JOIN receipts r ON r.merchant_id = u.merchant_id AND r.kind = p_kind
                     AND r.source_ref = u.source_ref
     ORDER BY u.ord;
END $$;
