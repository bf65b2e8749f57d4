-- add_campaign_budget_usage: what a booking's rewards cost is added to the budgets of their
-- campaigns (docs/decisions.md, "Budgets"): the grant of a till's basket (book_campaign_budgets)
-- and the booking of an online order (order-budgets.store.ts) call it in their transaction.
--
-- p_budgets: [{campaignId, period, discountMinor, redemptions}], the campaigns with a budget the
-- booking applies (period: the current one of a campaign with a per-period budget, else null).
-- Each counter grows only while it stays within its limit (a conditional UPDATE); the caller has
-- locked the rows (lock_campaign_budgets) and evaluated on what they held, so a booking that does
-- not fit is a broken promise: it raises, and the caller's transaction is undone.
CREATE OR REPLACE FUNCTION add_campaign_budget_usage(p_merchant_id bigint, p_budgets json)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  line record;
  v_rows integer;
BEGIN
  FOR line IN SELECT * FROM json_to_recordset(p_budgets)
      AS x("campaignId" bigint, period text, "discountMinor" bigint, redemptions integer) LOOP
    UPDATE campaign_budget_usage u
       SET discount_minor = u.discount_minor + line."discountMinor",
           redemptions = u.redemptions + line.redemptions
      FROM campaigns c
     WHERE u.merchant_id = p_merchant_id AND u.campaign_id = line."campaignId"
       AND c.merchant_id = u.merchant_id AND c.id = u.campaign_id
       AND (u.period = 'total' OR u.period = line.period)
       AND (u.period <> 'total' OR c.budget_total_minor IS NULL
            OR u.discount_minor + line."discountMinor" <= c.budget_total_minor)
       AND (u.period <> 'total' OR c.budget_redemptions IS NULL
            OR u.redemptions + line.redemptions <= c.budget_redemptions)
       AND (u.period = 'total' OR u.discount_minor + line."discountMinor" <= c.budget_period_minor);
    GET DIAGNOSTICS v_rows = ROW_COUNT;
    -- The total row, and the period's row of a per-period budget.
    IF v_rows < 1 + (line.period IS NOT NULL)::integer THEN
      RAISE EXCEPTION 'a campaign budget to book is not there under the lock';
    END IF;
  END LOOP;
END $$;
