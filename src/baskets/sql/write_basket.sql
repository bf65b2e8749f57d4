-- write_basket: the basket write of the upload hot path, one statement per upload
-- (docs/decisions.md, "Basket uploads are written with group commit"; docs/architecture.md, "A basket upload, from
-- request to answer").
--
-- It stores the basket only when the terminal is still what the caller assumed (bound to its
-- DevKey and usable, at the outlet, with the sortiment and the merchant's rules
-- version the upload was computed with: basket_terminal_current) and the basket is not granted: a granted basket never
-- changes. NULL means it wrote nothing, and the upload starts over with a fresh lookup. A
-- resubmission of the same basketId updates it and counts its revision up (grant_basket books an
-- evaluation only on the revision it saw).
--
-- Baskets have no foreign keys to merchants and terminals (migration 0007): this statement is their
-- one writer and checks the terminal in the same statement.
--
-- The column bill_number is what `body->>'BillNumber'` reads (migration 0049). The caller passes
-- it as p_bill_number when it knows it without parsing the body again (the upload: when the body's
-- text certainly holds that string); NULL, and it is read from the body here.
CREATE OR REPLACE FUNCTION write_basket(
  p_merchant_id bigint, p_unit_id text, p_basket_id text, p_outlet_id bigint,
  p_timestamp_utc timestamptz, p_offset_minutes integer, p_currency text, p_total_minor bigint,
  p_consumer_token text, p_gift_card_id text, p_body json, p_bill_number text, p_bill_pdf bytea,
  p_result json,
  p_uploaded_at timestamptz, p_dev_key_id bigint, p_sortiment_id bigint, p_rules_version bigint,
  p_profile_id bigint)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE written integer;
BEGIN
  IF NOT EXISTS (SELECT FROM basket_terminal_current(p_unit_id, p_dev_key_id, p_merchant_id,
      p_outlet_id, p_sortiment_id, p_rules_version)) THEN
    RETURN NULL;
  END IF;
  INSERT INTO baskets (merchant_id, tracking_unit_id, basket_id, outlet_id, timestamp_utc,
    timestamp_offset_minutes, currency, total_value_minor, consumer_token, gift_card_id, body,
    bill_number, bill_pdf, result, uploaded_at, profile_id)
  VALUES (p_merchant_id, p_unit_id, p_basket_id, p_outlet_id, p_timestamp_utc, p_offset_minutes,
    p_currency, p_total_minor, p_consumer_token, p_gift_card_id, p_body,
    COALESCE(p_bill_number, p_body->>'BillNumber'), p_bill_pdf, p_result, p_uploaded_at, p_profile_id)
  ON CONFLICT (tracking_unit_id, basket_id) DO NOTHING
  RETURNING revision INTO written;
  IF written IS NOT NULL THEN
    RETURN written;
  END IF;
  UPDATE baskets b SET
    outlet_id = p_outlet_id,
    timestamp_utc = p_timestamp_utc,
    timestamp_offset_minutes = p_offset_minutes,
    currency = p_currency,
    total_value_minor = p_total_minor,
    consumer_token = p_consumer_token,
    gift_card_id = p_gift_card_id,
    profile_id = p_profile_id,
    body = p_body,
    bill_number = COALESCE(p_bill_number, p_body->>'BillNumber'),
    bill_pdf = p_bill_pdf,
    result = p_result,
    uploaded_at = p_uploaded_at,
    revision = b.revision + 1
  WHERE b.tracking_unit_id = p_unit_id AND b.basket_id = p_basket_id AND b.granted_at IS NULL
  RETURNING b.revision INTO written;
  RETURN written;
END $$;
