-- write_baskets: the uploads of a batch, in order, in one statement (docs/decisions.md, "Basket
-- uploads are written with group commit"; src/baskets/basket-write.store.ts). Each row is one
-- write_basket call; the bill PDF comes base64-encoded in the batch's JSON.
CREATE OR REPLACE FUNCTION write_baskets(p_rows json)
RETURNS TABLE (row_no integer, revision integer) LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN SELECT * FROM json_to_recordset(p_rows) AS x(
      row_no integer, merchant_id bigint, unit_id text, basket_id text, outlet_id bigint,
      timestamp_utc timestamptz, offset_minutes integer, currency text, total_minor bigint,
      consumer_token text, gift_card_id text, body json, bill_pdf text, result json,
      uploaded_at timestamptz, dev_key_id bigint, sortiment_id bigint, rules_version bigint,
      profile_id bigint)
  LOOP
    row_no := r.row_no;
    revision := write_basket(r.merchant_id, r.unit_id, r.basket_id, r.outlet_id,
      r.timestamp_utc, r.offset_minutes, r.currency, r.total_minor, r.consumer_token,
      r.gift_card_id, r.body, decode(r.bill_pdf, 'base64'), r.result, r.uploaded_at,
      r.dev_key_id, r.sortiment_id, r.rules_version, r.profile_id);
    RETURN NEXT;
  END LOOP;
END $$;
