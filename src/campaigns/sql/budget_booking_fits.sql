-- budget_booking_fits: whether what a booking takes of a campaign's budgets (its discount and its
-- redemptions) fits what is left of them (docs/decisions.md, "Budgets"); a left of null is not
-- limited. The condition of budgetShortfall (src/campaigns/campaign-budgets.ts), by which pricing
-- leaves out a campaign whose reward does not fit whole (test/campaigns/budget-fit-agrees.test.ts
-- holds the two together); a batch of orders (book_orders) checks each order's bookings with it,
-- under the budget's lock, against what the orders before it left.
CREATE OR REPLACE FUNCTION budget_booking_fits(p_discount_left bigint, p_redemptions_left bigint,
  p_discount bigint, p_redemptions integer)
RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT (p_discount_left IS NULL OR p_discount <= p_discount_left)
     AND (p_redemptions_left IS NULL OR p_redemptions <= p_redemptions_left)
$$;
