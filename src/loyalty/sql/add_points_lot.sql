-- add_points_lot: a new lot of points with its movement, in one step (docs/decisions.md, "Points
-- history": points_lots is the projection of the immutable points_movements).
--
-- The grant's earned points (kind 'earn') and a return's spent points given back (kind
-- 'return_spent') both come in through here. The lot belongs to the holder points_holder named
-- (a profile, or a card of its own). Answers the lot's id; nothing for zero or fewer points.
CREATE OR REPLACE FUNCTION add_points_lot(p_merchant_id bigint, p_scheme_id bigint,
  p_profile_id bigint, p_card_id bigint, p_points integer, p_now timestamptz,
  p_expires_at timestamptz, p_kind text, p_unit_id text, p_basket_id text, p_return_id text)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v_lot bigint;
BEGIN
  IF p_points <= 0 THEN
    RETURN NULL;
  END IF;
  INSERT INTO points_lots (merchant_id, scheme_id, profile_id, card_id, points, remaining,
    earned_at, expires_at, tracking_unit_id, basket_id)
  VALUES (p_merchant_id, p_scheme_id, p_profile_id, p_card_id, p_points, p_points, p_now,
    p_expires_at, p_unit_id, p_basket_id)
  RETURNING id INTO v_lot;
  INSERT INTO points_movements (merchant_id, scheme_id, profile_id, card_id, kind, points, lot_id,
    tracking_unit_id, basket_id, return_id, created_at, expires_at, link_card_id)
  VALUES (p_merchant_id, p_scheme_id, p_profile_id, p_card_id, p_kind,
    p_points, v_lot, p_unit_id, p_basket_id, p_return_id, p_now, p_expires_at, NULL);
  RETURN v_lot;
END $$;
