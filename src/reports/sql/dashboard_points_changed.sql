-- dashboard_points_changed: the trigger of the points history that keeps the dashboard's points
-- earned and redeemed per local day and hour of the movement in the merchant's time zone and the
-- outlet of its till (0: a movement no till made) (docs/decisions.md, "Dashboard figures kept per
-- day"). The history is written, never changed (docs/decisions.md, "Points history"): inserts
-- only, one call per statement (migration 0036).
CREATE OR REPLACE FUNCTION dashboard_points_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO dashboard_hours AS d (merchant_id, day, outlet_id, hour, points_earned, points_redeemed)
  SELECT n.merchant_id, (n.created_at AT TIME ZONE m.time_zone)::date, COALESCE(tu.outlet_id, 0),
         extract(hour FROM n.created_at AT TIME ZONE m.time_zone)::smallint,
         COALESCE(sum(n.points) FILTER (WHERE n.kind = 'earn'), 0),
         COALESCE(-sum(n.points) FILTER (WHERE n.kind = 'spend'), 0)
    FROM new_rows n
    JOIN merchants m ON m.id = n.merchant_id
    LEFT JOIN tracking_units tu ON tu.id = n.tracking_unit_id
   WHERE n.kind IN ('earn', 'spend')
   GROUP BY 1, 2, 3, 4
  ON CONFLICT (merchant_id, day, outlet_id, hour) DO UPDATE SET
    points_earned = d.points_earned + excluded.points_earned,
    points_redeemed = d.points_redeemed + excluded.points_redeemed;
  RETURN NULL;
END $$;
