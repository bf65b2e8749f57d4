-- dashboard_count_baskets: adds baskets to the dashboard's daily figures, or takes them away
-- (docs/decisions.md, "Dashboard figures kept per day").
--
-- Each basket comes with a sign, +1 as it is now, -1 as it was before a change, so that one call
-- carries the whole change of a statement and what did not change cancels out and writes nothing.
-- The figures are the ones the dashboard shows, by the local day and hour of the basket's time in
-- the merchant's time zone and its outlet: granted baskets, open ones, their sales from the
-- positions (gross_minor, sales_lines), the rewards the grants booked, the till's TotalValue where
-- sent and where it differs; per article the amount and line gross; per campaign the reward value.
-- Called by dashboard_baskets_changed, the trigger of the baskets table (migration 0036).
CREATE OR REPLACE FUNCTION dashboard_count_baskets(
  p_sign integer[], p_merchant bigint[], p_outlet bigint[], p_at timestamptz[], p_granted boolean[],
  p_gross bigint[], p_reward bigint[], p_total bigint[], p_lines jsonb[], p_campaign_ids jsonb[],
  p_campaign_minor jsonb[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO dashboard_hours AS d (merchant_id, day, outlet_id, hour, baskets, open_baskets,
    sales_minor, rewards_minor, with_total_value, total_value_differs, differs_till_minor,
    differs_sales_minor)
  SELECT x.merchant_id, x.local::date, x.outlet_id, extract(hour FROM x.local)::smallint,
         COALESCE(sum(x.s) FILTER (WHERE x.granted), 0),
         COALESCE(sum(x.s) FILTER (WHERE NOT x.granted), 0),
         COALESCE(sum(x.s * x.gross) FILTER (WHERE x.granted), 0),
         COALESCE(sum(x.s * x.reward) FILTER (WHERE x.granted), 0),
         COALESCE(sum(x.s) FILTER (WHERE x.granted AND x.total IS NOT NULL), 0),
         COALESCE(sum(x.s) FILTER (WHERE x.granted AND x.total <> x.gross), 0),
         COALESCE(sum(x.s * x.total) FILTER (WHERE x.granted AND x.total <> x.gross), 0),
         COALESCE(sum(x.s * x.gross) FILTER (WHERE x.granted AND x.total <> x.gross), 0)
    FROM (SELECT u.s, u.merchant_id, u.outlet_id, u.at AT TIME ZONE m.time_zone AS local,
                 u.granted, u.gross, u.reward, u.total
            FROM unnest(p_sign, p_merchant, p_outlet, p_at, p_granted, p_gross, p_reward, p_total)
                 AS u(s, merchant_id, outlet_id, at, granted, gross, reward, total)
            JOIN merchants m ON m.id = u.merchant_id) x
   GROUP BY 1, 2, 3, 4
  HAVING sum(x.s) <> 0 OR COALESCE(sum(x.s) FILTER (WHERE x.granted), 0) <> 0
      OR COALESCE(sum(x.s * x.gross), 0) <> 0 OR COALESCE(sum(x.s * x.reward), 0) <> 0
      OR COALESCE(sum(x.s * x.total), 0) <> 0
      OR COALESCE(sum(x.s) FILTER (WHERE x.total IS NOT NULL), 0) <> 0
      OR COALESCE(sum(x.s) FILTER (WHERE x.total <> x.gross), 0) <> 0
  ON CONFLICT (merchant_id, day, outlet_id, hour) DO UPDATE SET
    baskets = d.baskets + excluded.baskets,
    open_baskets = d.open_baskets + excluded.open_baskets,
    sales_minor = d.sales_minor + excluded.sales_minor,
    rewards_minor = d.rewards_minor + excluded.rewards_minor,
    with_total_value = d.with_total_value + excluded.with_total_value,
    total_value_differs = d.total_value_differs + excluded.total_value_differs,
    differs_till_minor = d.differs_till_minor + excluded.differs_till_minor,
    differs_sales_minor = d.differs_sales_minor + excluded.differs_sales_minor;

  -- Articles: [PositionId, PLU or null, Amount, line gross] per position of a granted basket.
  INSERT INTO dashboard_articles AS d (merchant_id, day, outlet_id, plu, quantity, sales_minor)
  SELECT u.merchant_id, (u.at AT TIME ZONE m.time_zone)::date, u.outlet_id, COALESCE(l->>1, ''),
         sum(u.s * (l->>2)::numeric), sum(u.s * (l->>3)::bigint)
    FROM unnest(p_sign, p_merchant, p_outlet, p_at, p_granted, p_lines)
         AS u(s, merchant_id, outlet_id, at, granted, lines)
    JOIN merchants m ON m.id = u.merchant_id
   CROSS JOIN jsonb_array_elements(u.lines) AS l
   WHERE u.granted
   GROUP BY 1, 2, 3, 4
  HAVING sum(u.s * (l->>2)::numeric) <> 0 OR sum(u.s * (l->>3)::bigint) <> 0
  ON CONFLICT (merchant_id, day, outlet_id, plu) DO UPDATE SET
    quantity = d.quantity + excluded.quantity,
    sales_minor = d.sales_minor + excluded.sales_minor;

  -- Campaigns: the reward value the grant booked per campaign.
  INSERT INTO dashboard_campaigns AS d (merchant_id, day, outlet_id, campaign_id, cost_minor)
  SELECT u.merchant_id, (u.at AT TIME ZONE m.time_zone)::date, u.outlet_id, c.id::bigint,
         sum(u.s * c.minor::bigint)
    FROM unnest(p_sign, p_merchant, p_outlet, p_at, p_campaign_ids, p_campaign_minor)
         AS u(s, merchant_id, outlet_id, at, ids, minors)
    JOIN merchants m ON m.id = u.merchant_id
   CROSS JOIN LATERAL (SELECT i.value AS id, n.value AS minor
                         FROM jsonb_array_elements_text(u.ids) WITH ORDINALITY AS i(value, k)
                         JOIN jsonb_array_elements_text(u.minors) WITH ORDINALITY AS n(value, k)
                           ON n.k = i.k) c
   WHERE jsonb_typeof(u.ids) = 'array' AND jsonb_typeof(u.minors) = 'array'
   GROUP BY 1, 2, 3, 4
  HAVING sum(u.s * c.minor::bigint) <> 0
  ON CONFLICT (merchant_id, day, outlet_id, campaign_id) DO UPDATE SET
    cost_minor = d.cost_minor + excluded.cost_minor;
END $$;
