-- campaign_usages_projection_only: the trigger function that keeps campaign_usages a projection
-- of the immutable campaign_usage_movements (docs/decisions.md, "Points history"): a usage
-- changes only its release and its holder, and is never deleted.
--
-- Trigger: campaign_usages_projection, BEFORE UPDATE OR DELETE ON campaign_usages FOR EACH ROW
-- (migration 0010). Triggers are part of their table and stay in the numbered migrations.
CREATE OR REPLACE FUNCTION campaign_usages_projection_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' OR NEW.merchant_id <> OLD.merchant_id OR NEW.tracking_unit_id <> OLD.tracking_unit_id
     OR NEW.basket_id <> OLD.basket_id OR NEW.campaign_id <> OLD.campaign_id OR NEW.used <> OLD.used
     OR NEW.created_at <> OLD.created_at THEN
    RAISE EXCEPTION 'a campaign usage changes only its release and its holder' USING ERRCODE = '55000';
  END IF;
  RETURN NEW;
END $$;
