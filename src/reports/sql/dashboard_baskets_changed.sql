-- dashboard_baskets_changed: the trigger of the baskets table behind the dashboard's figures kept
-- per day (docs/decisions.md, "Dashboard figures kept per day"). After each statement that inserts,
-- updates or deletes baskets it appends the change to dashboard_changes: the rows as they were with
-- sign -1, the rows as they are with +1 (an update that changes no figure appends nothing).
-- dashboard_fold adds the changes to the daily figures when the dashboard is read, so a grant pays
-- one small insert, never an update of a day's row that every till of the outlet shares.
-- Statement triggers with transition tables (migrations 0036, 0037).
CREATE OR REPLACE FUNCTION dashboard_baskets_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO dashboard_changes (merchant_id, kind, sign, at, outlet_id, granted, gross_minor,
      reward_minor, total_value_minor, sales_lines, campaign_ids, campaign_minor)
    SELECT n.merchant_id, 'basket', 1, n.timestamp_utc, n.outlet_id, n.granted_at IS NOT NULL,
           n.gross_minor, n.reward_minor, n.total_value_minor, n.sales_lines, n.reward_campaign_ids,
           n.reward_campaign_minor
      FROM new_rows n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO dashboard_changes (merchant_id, kind, sign, at, outlet_id, granted, gross_minor,
      reward_minor, total_value_minor, sales_lines, campaign_ids, campaign_minor)
    SELECT o.merchant_id, 'basket', -1, o.timestamp_utc, o.outlet_id, o.granted_at IS NOT NULL,
           o.gross_minor, o.reward_minor, o.total_value_minor, o.sales_lines, o.reward_campaign_ids,
           o.reward_campaign_minor
      FROM old_rows o;
  ELSE
    -- An update that changes none of the figures (a re-upload of the same basket) appends nothing.
    WITH changed AS (
      SELECT o.tracking_unit_id, o.basket_id
        FROM old_rows o
        JOIN new_rows n ON n.tracking_unit_id = o.tracking_unit_id AND n.basket_id = o.basket_id
       WHERE (o.merchant_id, o.outlet_id, o.timestamp_utc, o.granted_at IS NULL, o.gross_minor,
              o.reward_minor, o.total_value_minor, o.sales_lines, o.reward_campaign_ids,
              o.reward_campaign_minor)
             IS DISTINCT FROM
             (n.merchant_id, n.outlet_id, n.timestamp_utc, n.granted_at IS NULL, n.gross_minor,
              n.reward_minor, n.total_value_minor, n.sales_lines, n.reward_campaign_ids,
              n.reward_campaign_minor))
    INSERT INTO dashboard_changes (merchant_id, kind, sign, at, outlet_id, granted, gross_minor,
      reward_minor, total_value_minor, sales_lines, campaign_ids, campaign_minor)
    SELECT x.merchant_id, 'basket', -1, x.timestamp_utc, x.outlet_id, x.granted_at IS NOT NULL,
           x.gross_minor, x.reward_minor, x.total_value_minor, x.sales_lines, x.reward_campaign_ids,
           x.reward_campaign_minor
      FROM old_rows x JOIN changed c ON c.tracking_unit_id = x.tracking_unit_id AND c.basket_id = x.basket_id
    UNION ALL
    SELECT x.merchant_id, 'basket', 1, x.timestamp_utc, x.outlet_id, x.granted_at IS NOT NULL,
           x.gross_minor, x.reward_minor, x.total_value_minor, x.sales_lines, x.reward_campaign_ids,
           x.reward_campaign_minor
      FROM new_rows x JOIN changed c ON c.tracking_unit_id = x.tracking_unit_id AND c.basket_id = x.basket_id;
  END IF;
  RETURN NULL;
END $$;
