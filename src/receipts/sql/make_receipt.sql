-- make_receipt: the receipt of one granted basket or checkout order, made once
-- (docs/decisions.md, "Receipts"): a batch of one of make_receipts, which holds the rule. The grant
-- (grant_basket) calls it.
CREATE OR REPLACE FUNCTION make_receipt(p_id text, p_merchant_id bigint, p_kind text,
  p_source_ref text, p_now timestamptz)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  v_id text;
BEGIN
  SELECT x.receipt_id INTO v_id
    FROM make_receipts(ARRAY[p_id], ARRAY[p_merchant_id], p_kind, ARRAY[p_source_ref],
      ARRAY[p_now], false) x;
  RETURN v_id;
END $$;
