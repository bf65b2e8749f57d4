-- dashboard_count_usages: adds campaign uses (negative: takes them away) to the dashboard's
-- figures per campaign, local day of the usage in the merchant's time zone and outlet of its till
-- (docs/decisions.md, "Dashboard figures kept per day"). Called by dashboard_usages_changed.
CREATE OR REPLACE FUNCTION dashboard_count_usages(
  p_merchant bigint[], p_unit text[], p_campaign bigint[], p_at timestamptz[], p_uses bigint[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO dashboard_campaigns AS d (merchant_id, day, outlet_id, campaign_id, uses)
  SELECT u.merchant_id, (u.at AT TIME ZONE m.time_zone)::date, COALESCE(tu.outlet_id, 0),
         u.campaign_id, sum(u.uses)
    FROM unnest(p_merchant, p_unit, p_campaign, p_at, p_uses)
         AS u(merchant_id, unit, campaign_id, at, uses)
    JOIN merchants m ON m.id = u.merchant_id
    LEFT JOIN tracking_units tu ON tu.id = u.unit
   GROUP BY 1, 2, 3, 4
  HAVING sum(u.uses) <> 0
  ON CONFLICT (merchant_id, day, outlet_id, campaign_id) DO UPDATE SET
    uses = d.uses + excluded.uses;
END $$;
