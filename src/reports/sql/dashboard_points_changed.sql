-- dashboard_points_changed: the trigger of the points history behind the dashboard's points earned
-- and redeemed (docs/decisions.md, "Dashboard figures kept per day"): after each statement it
-- appends the earned and spent points to dashboard_changes, by the movement's time and till;
-- dashboard_fold adds them to the day, hour and outlet. The history is written, never changed
-- (docs/decisions.md, "Points history"): inserts only (migrations 0036, 0037).
CREATE OR REPLACE FUNCTION dashboard_points_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO dashboard_changes (merchant_id, kind, sign, at, tracking_unit_id, points_earned,
    points_redeemed)
  SELECT n.merchant_id, 'points', 1, n.created_at, n.tracking_unit_id,
         CASE WHEN n.kind = 'earn' THEN n.points ELSE 0 END,
         CASE WHEN n.kind = 'spend' THEN -n.points ELSE 0 END
    FROM new_rows n
   WHERE n.kind IN ('earn', 'spend');
  RETURN NULL;
END $$;
