-- grant_baskets: the grants of a batch, in order, in one statement (docs/decisions.md, "Basket
-- grants are written with group commit"; src/baskets/grant-write.store.ts). Each row is one grant_basket call
-- with that row's outcome; the batch commits or fails as a whole, and the writer then writes its
-- grants again one by one.
--
-- p_lock_wait_ms: how long the batch waits for a row another session holds locked (docs/decisions.md,
-- "A row locked for long": a batch waits briefly, a grant written alone after that longer); past it
-- the statement fails with lock_not_available and nothing of the batch is written. The wait is set
-- for this call only: the transaction's own is back when it returns.
CREATE OR REPLACE FUNCTION grant_baskets(p_rows json, p_lock_wait_ms integer)
RETURNS TABLE (row_no integer, status text, revision integer, data json, notified boolean)
LANGUAGE plpgsql AS $$
DECLARE
  r record;
  v_lock_wait text := current_setting('lock_timeout');
BEGIN
  PERFORM set_config('lock_timeout', p_lock_wait_ms || 'ms', true);
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
  PERFORM set_config('lock_timeout', v_lock_wait, true);
END $$;
