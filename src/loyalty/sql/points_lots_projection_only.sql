-- points_lots_projection_only: the trigger function that keeps points_lots a projection of the
-- immutable points_movements (docs/decisions.md, "Points history"): a lot changes only its
-- remaining points and its holder, and is never deleted; npm run ledger:verify checks the
-- projection against the movements.
--
-- Trigger: points_lots_projection, BEFORE UPDATE OR DELETE ON points_lots FOR EACH ROW
-- (migration 0010). Triggers are part of their table and stay in the numbered migrations.
CREATE OR REPLACE FUNCTION points_lots_projection_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' OR NEW.id <> OLD.id OR NEW.merchant_id <> OLD.merchant_id
     OR NEW.scheme_id <> OLD.scheme_id OR NEW.points <> OLD.points OR NEW.earned_at <> OLD.earned_at
     OR NEW.expires_at IS DISTINCT FROM OLD.expires_at
     OR NEW.tracking_unit_id IS DISTINCT FROM OLD.tracking_unit_id
     OR NEW.basket_id IS DISTINCT FROM OLD.basket_id THEN
    RAISE EXCEPTION 'a points lot changes only its remaining points and its holder' USING ERRCODE = '55000';
  END IF;
  RETURN NEW;
END $$;
