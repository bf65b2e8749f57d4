-- make_receipt: the receipt of a granted basket or a checkout order, made once (docs/decisions.md,
-- "Receipts"; docs/architecture.md, "Where each rule lives").
--
-- The one place a receipt is made: the grant (grant_basket), the order (book_order, both ways of
-- writing it) and the service (createReceipt, src/receipts/receipt.store.ts) call it. A second call
-- for the same source answers the id made first, so a retried grant or order keeps its receipt.
CREATE OR REPLACE FUNCTION make_receipt(p_id text, p_merchant_id bigint, p_kind text,
  p_source_ref text, p_now timestamptz)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  v_id text;
BEGIN
  INSERT INTO receipts (id, merchant_id, kind, source_ref, created_at)
  VALUES (p_id, p_merchant_id, p_kind, p_source_ref, p_now)
  ON CONFLICT (merchant_id, kind, source_ref) DO NOTHING
  RETURNING id INTO v_id;
  IF v_id IS NULL THEN
    SELECT r.id INTO v_id FROM receipts r
     WHERE r.merchant_id = p_merchant_id AND r.kind = p_kind AND r.source_ref = p_source_ref;
  END IF;
  RETURN v_id;
END $$;
