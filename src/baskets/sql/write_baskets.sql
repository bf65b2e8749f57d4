-- write_baskets: the uploads of a batch, in order, in one statement (docs/decisions.md, "Basket
-- uploads are written with group commit"; src/baskets/basket-write.store.ts). Each row has the
-- outcome write_basket would give it. The rows come as one array per column, in the batch's order;
-- bodies and results as one text each, the rows' JSON texts joined by U+001E, which JSON text
-- cannot hold (so neither the server escapes them nor the database reads them twice: each is
-- parsed once, as json); each bill number as write_basket takes it (NULL: read from the body);
-- the bill PDF base64-encoded.
--
-- The new baskets of the batch (the first row of each basket whose terminal is still what the
-- caller assumed, basket_terminal_current) go in one INSERT, in the batch's order, so that the statement's work (the
-- dashboard's trigger, its appended changes) is paid once per batch, not once per basket. Every
-- other row (a basket stored before, sent twice in the batch, or whose terminal changed) is
-- written by write_basket itself, in the batch's order, after that INSERT.
-- The statement keeps its generic plan (plan_cache_mode, docs/decisions.md "Plans kept for batches
-- of any size"): left to choose, PostgreSQL planned it afresh for each batch of a few uploads, with
-- the batch's arrays copied into the plan.
CREATE OR REPLACE FUNCTION write_baskets(
  p_row_no integer[], p_merchant_id bigint[], p_unit_id text[], p_basket_id text[],
  p_outlet_id bigint[], p_timestamp_utc timestamptz[], p_offset_minutes integer[], p_currency text[],
  p_total_minor bigint[], p_consumer_token text[], p_gift_card_id text[], p_bodies text,
  p_bill_number text[], p_bill_pdf text[], p_results text, p_uploaded_at timestamptz[],
  p_dev_key_id bigint[], p_sortiment_id bigint[], p_rules_version bigint[], p_profile_id bigint[])
RETURNS TABLE (row_no integer, revision integer)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE r record;
BEGIN
  FOR r IN
    WITH x AS (
      SELECT * FROM unnest(p_row_no, p_merchant_id, p_unit_id, p_basket_id, p_outlet_id,
          p_timestamp_utc, p_offset_minutes, p_currency, p_total_minor, p_consumer_token,
          p_gift_card_id, string_to_array(p_bodies, E'\x1e')::json[], p_bill_number, p_bill_pdf,
          string_to_array(p_results, E'\x1e')::json[], p_uploaded_at, p_dev_key_id, p_sortiment_id,
          p_rules_version, p_profile_id) WITH ORDINALITY AS x(
          row_no, merchant_id, unit_id, basket_id, outlet_id, timestamp_utc, offset_minutes,
          currency, total_minor, consumer_token, gift_card_id, body, bill_number, bill_pdf, result,
          uploaded_at, dev_key_id, sortiment_id, rules_version, profile_id, ordinality)),
    fresh AS (
      SELECT DISTINCT ON (x.unit_id, x.basket_id) x.*
        FROM x
       WHERE EXISTS (SELECT FROM basket_terminal_current(x.unit_id, x.dev_key_id, x.merchant_id,
               x.outlet_id, x.sortiment_id, x.rules_version))
       ORDER BY x.unit_id, x.basket_id, x.ordinality),
    inserted AS (
      INSERT INTO baskets (merchant_id, tracking_unit_id, basket_id, outlet_id, timestamp_utc,
        timestamp_offset_minutes, currency, total_value_minor, consumer_token, gift_card_id, body,
        bill_number, bill_pdf, result, uploaded_at, profile_id)
      SELECT f.merchant_id, f.unit_id, f.basket_id, f.outlet_id, f.timestamp_utc, f.offset_minutes,
        f.currency, f.total_minor, f.consumer_token, f.gift_card_id, f.body,
        COALESCE(f.bill_number, f.body->>'BillNumber'),
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
        r.gift_card_id, r.body, r.bill_number, decode(r.bill_pdf, 'base64'), r.result,
        r.uploaded_at, r.dev_key_id, r.sortiment_id, r.rules_version, r.profile_id);
    END IF;
    RETURN NEXT;
  END LOOP;
END $$;
