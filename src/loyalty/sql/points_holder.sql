-- points_holder: the consumer who holds the points now, locked for the booking (docs/decisions.md,
-- "Grant and points booking": who collects points).
--
-- A card linked to a profile since the upload (or the grant) brought its points to that profile,
-- so bookings go there. The holder's row is locked: two bookings of one consumer (grants, returns)
-- run one after the other, so points are never spent twice. Both null: nobody to lock.
CREATE OR REPLACE FUNCTION points_holder(p_profile_id bigint, p_card_id bigint,
  OUT holder_profile_id bigint, OUT holder_card_id bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_linked bigint;
BEGIN
  holder_profile_id := p_profile_id;
  holder_card_id := p_card_id;
  IF holder_card_id IS NOT NULL THEN
    SELECT c.profile_id INTO v_linked FROM cards c WHERE c.id = holder_card_id;
    IF v_linked IS NOT NULL THEN
      holder_profile_id := v_linked;
      holder_card_id := NULL;
    END IF;
  END IF;
  IF holder_profile_id IS NOT NULL THEN
    PERFORM 1 FROM profiles p WHERE p.id = holder_profile_id FOR UPDATE;
  ELSIF holder_card_id IS NOT NULL THEN
    PERFORM 1 FROM cards c WHERE c.id = holder_card_id FOR UPDATE;
  END IF;
END $$;
