-- book_campaign_budgets: the grant adds what its rewards cost to the budgets of their campaigns
-- (docs/decisions.md, "Budgets"); grant_basket calls it in the grant's transaction.
--
-- p_budgets: [{campaignId, period, discountMinor, redemptions}], the campaigns with a budget the
-- booking applies (period: the current one of a campaign with a per-period budget, else null).
-- Each counter grows only while it stays within its limit (a conditional UPDATE); grant_basket has
-- locked the rows (lock_campaign_budgets) and evaluated on what they held, so a booking that does
-- not fit is a broken promise: it raises, and the grant's batch is undone. What each basket booked
-- is kept, so that a return gives it back to the period it was booked in.
CREATE OR REPLACE FUNCTION book_campaign_budgets(p_merchant_id bigint, p_unit_id text,
  p_basket_id text, p_budgets json, p_now timestamptz)
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
    INSERT INTO campaign_budget_bookings (merchant_id, tracking_unit_id, basket_id, campaign_id,
      period, discount_minor, redemptions, booked_at)
    VALUES (p_merchant_id, p_unit_id, p_basket_id, line."campaignId", line.period,
      line."discountMinor", line.redemptions, p_now);
  END LOOP;
END $$;
