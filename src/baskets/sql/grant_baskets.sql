-- grant_baskets: the grants of a batch, in order, in one statement (docs/decisions.md, "Basket
-- grants are written with group commit"; src/baskets/grant-write.store.ts). Each row is one grant_basket call
-- with that row's outcome; the batch commits or fails as a whole, and the writer then writes its
-- grants again one by one.
CREATE OR REPLACE FUNCTION grant_baskets(p_rows json)
RETURNS TABLE (row_no integer, status text, revision integer, data json, notified boolean)
LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN SELECT * FROM json_to_recordset(p_rows) AS x(
      row_no integer, merchant_id bigint, unit_id text, basket_id text, now timestamptz,
      redeemed boolean, receipt_id text, source_ref text, check_unit boolean,
      dev_key_id bigint, checksum_secret text, revision integer, consumer json, state json,
      booking json, stored json)
  LOOP
    row_no := r.row_no;
    SELECT g.status, g.revision, g.data, g.notified INTO status, revision, data, notified
      FROM grant_basket(r.merchant_id, r.unit_id, r.basket_id, r.now, r.redeemed, r.receipt_id,
        r.source_ref, r.check_unit, r.dev_key_id, r.checksum_secret, r.revision,
        r.consumer, r.state, r.booking, r.stored) g;
    RETURN NEXT;
  END LOOP;
END $$;
