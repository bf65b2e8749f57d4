-- lock_campaign_budgets: what is left of the budgets of a basket's campaigns, locked until the end
-- of the caller's transaction (docs/decisions.md, "Budgets").
--
-- For each campaign with a budget: its 'total' row and the row of the current period (the day,
-- ISO week or month in the merchant's time zone) are made if missing and locked in campaign and
-- period order, so that two grants of one campaign book one after the other and the second reads
-- what the first booked (READ COMMITTED re-reads a row it waited for). grant_basket reads the
-- answer as part of what the grant's evaluation saw. Answer: [{campaignId, period, discountLeft,
-- redemptionsLeft}] in campaign order; a left of null is not limited.
CREATE OR REPLACE FUNCTION lock_campaign_budgets(p_merchant_id bigint, p_campaign_ids bigint[],
  p_now timestamptz)
RETURNS json LANGUAGE plpgsql AS $$
DECLARE
  v_local timestamp;
  v_day text;
  v_week text;
  v_month text;
  v_answer json;
BEGIN
  IF cardinality(p_campaign_ids) = 0 THEN
    RETURN '[]'::json;
  END IF;
  SELECT p_now AT TIME ZONE m.time_zone INTO v_local FROM merchants m WHERE m.id = p_merchant_id;
  v_day := campaign_budget_period('day', v_local);
  v_week := campaign_budget_period('week', v_local);
  v_month := campaign_budget_period('month', v_local);
  INSERT INTO campaign_budget_usage (merchant_id, campaign_id, period)
  SELECT p_merchant_id, c.id, x.period FROM campaigns c
   CROSS JOIN LATERAL (VALUES ('total'), (campaign_budget_period(c.budget_period, v_local))) x(period)
   WHERE c.merchant_id = p_merchant_id AND c.id = ANY (p_campaign_ids) AND x.period IS NOT NULL
     AND (c.budget_total_minor IS NOT NULL OR c.budget_redemptions IS NOT NULL
          OR c.budget_period IS NOT NULL)
   ORDER BY c.id, x.period
      ON CONFLICT DO NOTHING;
  PERFORM 1 FROM campaign_budget_usage u
   WHERE u.merchant_id = p_merchant_id AND u.campaign_id = ANY (p_campaign_ids)
     AND u.period IN ('total', v_day, v_week, v_month)
   ORDER BY u.campaign_id, u.period
     FOR UPDATE;
  SELECT COALESCE(json_agg(json_build_object(
           'campaignId', l.campaign_id, 'period', l.period,
           'discountLeft', l.discount_left, 'redemptionsLeft', l.redemptions_left)
         ORDER BY l.campaign_id), '[]'::json) INTO v_answer
    FROM (SELECT c.id AS campaign_id, p.period,
                 CASE WHEN c.budget_total_minor IS NULL THEN c.budget_period_minor - p.discount_minor
                      WHEN c.budget_period_minor IS NULL THEN c.budget_total_minor - t.discount_minor
                      ELSE LEAST(c.budget_total_minor - t.discount_minor,
                                 c.budget_period_minor - p.discount_minor) END AS discount_left,
                 c.budget_redemptions - t.redemptions AS redemptions_left
            FROM campaigns c
            JOIN campaign_budget_usage t ON t.merchant_id = c.merchant_id AND t.campaign_id = c.id
             AND t.period = 'total'
            LEFT JOIN campaign_budget_usage p ON p.merchant_id = c.merchant_id
             AND p.campaign_id = c.id AND p.period = campaign_budget_period(c.budget_period, v_local)
           WHERE c.merchant_id = p_merchant_id AND c.id = ANY (p_campaign_ids)
           ORDER BY c.id) l;
  RETURN v_answer;
END $$;
