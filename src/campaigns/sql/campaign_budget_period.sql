-- campaign_budget_period: the budget period a wall-clock time of the merchant falls in, as
-- campaign_budget_usage keys it (docs/decisions.md, "Budgets"): the first day of the day, ISO week
-- (Monday) or month, 'YYYY-MM-DD'; null for a campaign without a per-period budget.
-- lock_campaign_budgets books into it; the campaign's read shows what is left of it.
CREATE OR REPLACE FUNCTION campaign_budget_period(p_period text, p_local timestamp)
RETURNS text LANGUAGE sql STABLE AS $$
  SELECT to_char(CASE p_period WHEN 'day' THEN p_local::date
    WHEN 'week' THEN date_trunc('week', p_local)::date
    WHEN 'month' THEN date_trunc('month', p_local)::date END, 'YYYY-MM-DD')
$$;
