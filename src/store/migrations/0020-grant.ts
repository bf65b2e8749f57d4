import type { Migration } from './migration.js';

/**
 * The grant of a basket as stored functions (docs/decisions.md "Grant and points booking",
 * "Basket grants are written with group commit").
 *
 * `grant_basket` does in one statement what the grant did in about ten: it locks the basket,
 * answers a granted one with its stored response, books what the caller evaluated (points earned
 * and spent, campaign usages), makes the receipt, queues the purchase notification and stores
 * the booking. The engine stays in the service: a basket the upload's rules touched comes back
 * as `evaluate` with the consumer's points and usages, and is booked on the next call only if
 * these, the consumer and the basket's revision are still what the evaluation saw (checked under
 * the consumer's lock). A basket no rule touched has nothing to evaluate and is booked at once.
 *
 * `grant_baskets` applies it to the rows of a batch in order (the grants' group commit).
 *
 * The functions this migration made or changed are kept in their files,
 * `src/baskets/sql/grant_basket.sql`, `src/baskets/sql/grant_baskets.sql`,
 * `src/loyalty/sql/consumer_state.sql` (once `grant_consumer_state`), `src/baskets/sql/grant_reward_minor.sql`,
 * `src/baskets/sql/grant_campaign_ids.sql`, `src/baskets/sql/grant_campaign_minor.sql`, which the
 * migrator applies whenever they change (docs/architecture.md, "The stored-function layer").
 */
export const grant: Migration = {
  name: '0020-grant',
  statements: [],
};
