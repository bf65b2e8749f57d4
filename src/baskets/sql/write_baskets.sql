-- write_baskets: the uploads of a batch, in order, in one statement (docs/decisions.md, "Basket
-- uploads are written with group commit"; src/baskets/basket-write.store.ts). Each row has the
-- outcome write_basket would give it; the bill PDF comes base64-encoded in the batch's JSON.
--
-- The new baskets of the batch (the first row of each basket whose terminal is still what the
-- caller assumed) go in one INSERT, in the batch's order, so that the statement's work (the
-- dashboard's trigger, its appended changes) is paid once per batch, not once per basket. Every
-- other row (a basket stored before, sent twice in the batch, or whose terminal changed) is
-- written by write_basket itself, in the batch's order, after that INSERT.
CREATE OR REPLACE FUNCTION write_baskets(p_rows json)
RETURNS TABLE (row_no integer, revision integer) LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN
    WITH x AS (
      SELECT * FROM ROWS FROM (json_to_recordset(p_rows) AS (
          row_no integer, merchant_id bigint, unit_id text, basket_id text, outlet_id bigint,
          timestamp_utc timestamptz, offset_minutes integer, currency text, total_minor bigint,
          consumer_token text, gift_card_id text, body json, bill_pdf text, result json,
          uploaded_at timestamptz, dev_key_id bigint, sortiment_id bigint, rules_version bigint,
          profile_id bigint)) WITH ORDINALITY AS x),
    fresh AS (
      SELECT DISTINCT ON (x.unit_id, x.basket_id) x.*
        FROM x
        JOIN tracking_units tu ON tu.id = x.unit_id AND tu.dev_key_id = x.dev_key_id
          AND tu.merchant_id = x.merchant_id AND tu.outlet_id = x.outlet_id
          AND tu.sortiment_id IS NOT DISTINCT FROM x.sortiment_id
        JOIN merchants m ON m.id = tu.merchant_id AND m.rules_version = x.rules_version
        JOIN dev_keys dk ON dk.id = tu.dev_key_id
       WHERE terminal_refusal(dk.revoked_at, tu.id, tu.activated, tu.deactivated_at, true) IS NULL
       ORDER BY x.unit_id, x.basket_id, x.ordinality),
    inserted AS (
      INSERT INTO baskets (merchant_id, tracking_unit_id, basket_id, outlet_id, timestamp_utc,
        timestamp_offset_minutes, currency, total_value_minor, consumer_token, gift_card_id, body,
        bill_pdf, result, uploaded_at, profile_id)
      SELECT f.merchant_id, f.unit_id, f.basket_id, f.outlet_id, f.timestamp_utc, f.offset_minutes,
        f.currency, f.total_minor, f.consumer_token, f.gift_card_id, f.body,
        decode(f.bill_pdf, 'base64'), f.result, f.uploaded_at, f.profile_id
        FROM fresh f ORDER BY f.ordinality
      ON CONFLICT (tracking_unit_id, basket_id) DO NOTHING
      RETURNING baskets.tracking_unit_id, baskets.basket_id, baskets.revision)
    SELECT x.*, i.revision AS inserted_revision
      FROM x
      LEFT JOIN fresh f ON f.ordinality = x.ordinality
      LEFT JOIN inserted i ON i.tracking_unit_id = f.unit_id AND i.basket_id = f.basket_id
     ORDER BY x.ordinality
  LOOP
    row_no := r.row_no;
    IF r.inserted_revision IS NOT NULL THEN
      revision := r.inserted_revision;
    ELSE
      revision := write_basket(r.merchant_id, r.unit_id, r.basket_id, r.outlet_id,
        r.timestamp_utc, r.offset_minutes, r.currency, r.total_minor, r.consumer_token,
        r.gift_card_id, r.body, decode(r.bill_pdf, 'base64'), r.result, r.uploaded_at,
        r.dev_key_id, r.sortiment_id, r.rules_version, r.profile_id);
    END IF;
    RETURN NEXT;
  END LOOP;
END $$;
