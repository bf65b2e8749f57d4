import type { Migration } from './migration.js';

/**
 * The portal finds a merchant's baskets by bill number, by basket id and by card
 * (docs/decisions.md, "Finding baskets and customers"): one index each, so that a search answers
 * from a few rows of a merchant with a year of baskets. The bill number is the till's `BillNumber`
 * as the basket body holds it; the card indexes are partial (most baskets carry no card).
 */
export const basketSearch: Migration = {
  name: '0033-basket-search',
  statements: [
    `CREATE INDEX baskets_merchant_bill ON baskets (merchant_id, (body->>'BillNumber'))
       WHERE body->>'BillNumber' IS NOT NULL`,
    `CREATE INDEX baskets_merchant_basket_id ON baskets (merchant_id, basket_id)`,
    `CREATE INDEX baskets_merchant_consumer ON baskets (merchant_id, consumer_token, timestamp_utc)
       WHERE consumer_token IS NOT NULL`,
    `CREATE INDEX baskets_merchant_gift_card ON baskets (merchant_id, gift_card_id, timestamp_utc)
       WHERE gift_card_id IS NOT NULL`,
  ],
};
