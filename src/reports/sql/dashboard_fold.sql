-- dashboard_fold: adds a merchant's changes appended by the triggers (dashboard_changes) to the
-- dashboard's figures kept per day, and removes them, in one statement (docs/decisions.md,
-- "Dashboard figures kept per day"). The dashboard calls it before it reads whole days.
--
-- Each change counts on the local day and hour of its time in the merchant's time zone, at the
-- outlet of its basket (for points and uses: of its till; 0 when none): a basket with its sign
-- (+1 as it is now, -1 as it was), its granted or open count, sales from the positions, rewards,
-- TotalValue sent and differing, per PLU the amount and line gross, per campaign the reward value;
-- points earned and redeemed; a campaign's uses. Two folds at once take each change once: the
-- second waits for the first's DELETE and finds the rows gone. Answers how many changes it took.
CREATE OR REPLACE FUNCTION dashboard_fold(p_merchant_id bigint) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  taken integer;
BEGIN
  WITH moved AS (
    DELETE FROM dashboard_changes WHERE merchant_id = p_merchant_id RETURNING *),
  x AS (
    SELECT c.*, c.at AT TIME ZONE m.time_zone AS local, COALESCE(c.outlet_id, tu.outlet_id, 0) AS outlet
      FROM moved c
      JOIN merchants m ON m.id = c.merchant_id
      LEFT JOIN tracking_units tu ON tu.id = c.tracking_unit_id),
  hours AS (
    INSERT INTO dashboard_hours AS d (merchant_id, day, outlet_id, hour, baskets, open_baskets,
      sales_minor, rewards_minor, with_total_value, total_value_differs, differs_till_minor,
      differs_sales_minor, points_earned, points_redeemed)
    SELECT x.merchant_id, x.local::date, x.outlet, extract(hour FROM x.local)::smallint,
           COALESCE(sum(x.sign) FILTER (WHERE x.kind = 'basket' AND x.granted), 0),
           COALESCE(sum(x.sign) FILTER (WHERE x.kind = 'basket' AND NOT x.granted), 0),
           COALESCE(sum(x.sign * x.gross_minor) FILTER (WHERE x.granted), 0),
           COALESCE(sum(x.sign * x.reward_minor) FILTER (WHERE x.granted), 0),
           COALESCE(sum(x.sign) FILTER (WHERE x.granted AND x.total_value_minor IS NOT NULL), 0),
           COALESCE(sum(x.sign) FILTER (WHERE x.granted AND x.total_value_minor <> x.gross_minor), 0),
           COALESCE(sum(x.sign * x.total_value_minor)
                    FILTER (WHERE x.granted AND x.total_value_minor <> x.gross_minor), 0),
           COALESCE(sum(x.sign * x.gross_minor)
                    FILTER (WHERE x.granted AND x.total_value_minor <> x.gross_minor), 0),
           COALESCE(sum(x.sign * x.points_earned), 0),
           COALESCE(sum(x.sign * x.points_redeemed), 0)
      FROM x
     WHERE x.kind IN ('basket', 'points')
     GROUP BY 1, 2, 3, 4
    ON CONFLICT (merchant_id, day, outlet_id, hour) DO UPDATE SET
      baskets = d.baskets + excluded.baskets,
      open_baskets = d.open_baskets + excluded.open_baskets,
      sales_minor = d.sales_minor + excluded.sales_minor,
      rewards_minor = d.rewards_minor + excluded.rewards_minor,
      with_total_value = d.with_total_value + excluded.with_total_value,
      total_value_differs = d.total_value_differs + excluded.total_value_differs,
      differs_till_minor = d.differs_till_minor + excluded.differs_till_minor,
      differs_sales_minor = d.differs_sales_minor + excluded.differs_sales_minor,
      points_earned = d.points_earned + excluded.points_earned,
      points_redeemed = d.points_redeemed + excluded.points_redeemed
    RETURNING 1),
  articles AS (
    -- [PositionId, PLU or null, Amount, line gross] per position of a granted basket.
    INSERT INTO dashboard_articles AS d (merchant_id, day, outlet_id, plu, quantity, sales_minor)
    SELECT x.merchant_id, x.local::date, x.outlet, COALESCE(l->>1, ''),
           sum(x.sign * (l->>2)::numeric), sum(x.sign * (l->>3)::bigint)
      FROM x CROSS JOIN jsonb_array_elements(x.sales_lines) AS l
     WHERE x.kind = 'basket' AND x.granted
     GROUP BY 1, 2, 3, 4
    ON CONFLICT (merchant_id, day, outlet_id, plu) DO UPDATE SET
      quantity = d.quantity + excluded.quantity,
      sales_minor = d.sales_minor + excluded.sales_minor
    RETURNING 1),
  campaigns AS (
    INSERT INTO dashboard_campaigns AS d (merchant_id, day, outlet_id, campaign_id, uses, cost_minor)
    SELECT y.merchant_id, y.day, y.outlet, y.campaign_id, sum(y.uses), sum(y.cost)
      FROM (SELECT x.merchant_id, x.local::date AS day, x.outlet, r.campaign_id, 0::bigint AS uses,
                   x.sign * r.minor AS cost
              FROM x CROSS JOIN unnest(x.campaign_ids, x.campaign_minor) AS r(campaign_id, minor)
             WHERE x.kind = 'basket' AND x.granted
            UNION ALL
            SELECT x.merchant_id, x.local::date, x.outlet, x.campaign_id, x.sign * x.uses, 0
              FROM x WHERE x.kind = 'usage') y
     GROUP BY 1, 2, 3, 4
    ON CONFLICT (merchant_id, day, outlet_id, campaign_id) DO UPDATE SET
      uses = d.uses + excluded.uses,
      cost_minor = d.cost_minor + excluded.cost_minor
    RETURNING 1)
  SELECT count(*) INTO taken FROM moved;
  RETURN taken;
END $$;
