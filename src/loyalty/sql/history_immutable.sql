-- history_immutable: the trigger function that keeps a history append-only (docs/decisions.md,
-- "Points history"): an UPDATE or DELETE of a row raises.
--
-- Triggers (migration 0010): points_movements_no_change on points_movements and
-- campaign_usage_movements_no_change on campaign_usage_movements, BEFORE UPDATE OR DELETE, FOR
-- EACH ROW. Triggers are part of their table and stay in the numbered migrations.
CREATE OR REPLACE FUNCTION history_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% rows are immutable', TG_TABLE_NAME USING ERRCODE = '55000';
END $$;
