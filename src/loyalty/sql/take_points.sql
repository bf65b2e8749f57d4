-- take_points: takes points from a holder's unexpired lots, oldest expiry first (lots that never
-- expire last), and answers how many it took (docs/decisions.md, "Grant and points booking":
-- booking order).
--
-- The one rule for taking points: a grant spends them (kind 'spend'), a return takes back the
-- points its basket earned (kind 'return_earned', its own basket's lots first). Each lot taken
-- from gets its movement in the immutable points history. Never below zero: it takes what is
-- there, and the caller decides what a shortfall means (the grant raises, the return records it).
-- The caller holds the holder's lock (points_holder).
CREATE OR REPLACE FUNCTION take_points(p_merchant_id bigint, p_scheme_id bigint,
  p_profile_id bigint, p_card_id bigint, p_points integer, p_now timestamptz, p_kind text,
  p_unit_id text, p_basket_id text, p_return_id text, p_own_basket_first boolean)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  lot record;
  v_left integer := GREATEST(p_points, 0);
  v_take integer;
BEGIN
  IF v_left = 0 THEN
    RETURN 0;
  END IF;
  FOR lot IN SELECT l.id, l.remaining FROM points_lots l
      WHERE l.merchant_id = p_merchant_id AND l.remaining > 0
        AND (l.expires_at IS NULL OR l.expires_at > p_now)
        AND (l.profile_id = p_profile_id OR l.card_id = p_card_id)
        AND l.scheme_id = p_scheme_id
      ORDER BY CASE WHEN p_own_basket_first AND l.tracking_unit_id = p_unit_id
                     AND l.basket_id = p_basket_id THEN 0 ELSE 1 END,
               l.expires_at ASC NULLS LAST, l.earned_at, l.id
      FOR UPDATE LOOP
    EXIT WHEN v_left = 0;
    v_take := LEAST(v_left, lot.remaining);
    UPDATE points_lots SET remaining = lot.remaining - v_take WHERE id = lot.id;
    INSERT INTO points_movements (merchant_id, scheme_id, profile_id, card_id, kind, points,
      lot_id, tracking_unit_id, basket_id, return_id, created_at, expires_at, link_card_id)
    VALUES (p_merchant_id, p_scheme_id, p_profile_id, p_card_id, p_kind,
      -v_take, lot.id, p_unit_id, p_basket_id, p_return_id, p_now, NULL, NULL);
    v_left := v_left - v_take;
  END LOOP;
  RETURN GREATEST(p_points, 0) - v_left;
END $$;
