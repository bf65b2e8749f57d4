-- book_campaign_budgets: the grant adds what its rewards cost to the budgets of their campaigns
-- (docs/decisions.md, "Budgets"); grant_basket calls it in the grant's transaction.
--
-- p_budgets: [{campaignId, period, discountMinor, redemptions}], as add_campaign_budget_usage
-- takes them, which adds them within their limits or raises. What each basket booked is kept, so
-- that a return gives it back to the period it was booked in.
CREATE OR REPLACE FUNCTION book_campaign_budgets(p_merchant_id bigint, p_unit_id text,
  p_basket_id text, p_budgets json, p_now timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM add_campaign_budget_usage(p_merchant_id, p_budgets);
  INSERT INTO campaign_budget_bookings (merchant_id, tracking_unit_id, basket_id, campaign_id,
    period, discount_minor, redemptions, booked_at)
  SELECT p_merchant_id, p_unit_id, p_basket_id, x."campaignId", x.period, x."discountMinor",
         x.redemptions, p_now
    FROM json_to_recordset(p_budgets)
      AS x("campaignId" bigint, period text, "discountMinor" bigint, redemptions integer);
END $$;
