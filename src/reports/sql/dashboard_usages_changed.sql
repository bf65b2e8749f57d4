-- dashboard_usages_changed: the trigger of campaign_usages behind each campaign's uses on the
-- dashboard (used less released by returns; docs/decisions.md, "Dashboard figures kept per day"):
-- after each statement it appends the change of the uses to dashboard_changes, by the usage's time
-- and till; dashboard_fold adds it to the day and outlet (migrations 0036, 0037).
CREATE OR REPLACE FUNCTION dashboard_usages_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO dashboard_changes (merchant_id, kind, sign, at, tracking_unit_id, campaign_id, uses)
    SELECT n.merchant_id, 'usage', 1, n.created_at, n.tracking_unit_id, n.campaign_id,
           n.used - n.released
      FROM new_rows n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO dashboard_changes (merchant_id, kind, sign, at, tracking_unit_id, campaign_id, uses)
    SELECT o.merchant_id, 'usage', -1, o.created_at, o.tracking_unit_id, o.campaign_id,
           o.used - o.released
      FROM old_rows o;
  ELSE
    INSERT INTO dashboard_changes (merchant_id, kind, sign, at, tracking_unit_id, campaign_id, uses)
    SELECT o.merchant_id, 'usage', -1, o.created_at, o.tracking_unit_id, o.campaign_id,
           o.used - o.released
      FROM old_rows o
    UNION ALL
    SELECT n.merchant_id, 'usage', 1, n.created_at, n.tracking_unit_id, n.campaign_id,
           n.used - n.released
      FROM new_rows n;
  END IF;
  RETURN NULL;
END $$;
