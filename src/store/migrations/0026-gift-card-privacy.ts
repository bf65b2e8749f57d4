import type { Migration } from './migration.js';

/**
 * A basket bought or paid with a gift card stays out of the consumer's view (docs/decisions.md,
 * "Gift-card privacy and hardened pages"; POS interface v3: a gift card's holder has "no public
 * consumer-portal access to its activity (loading, unloading, baskets bought or paid with it)").
 * The upload marks such a basket in its stored result (`giftCard: true`); `grant_basket` queues no
 * purchase notification for it, and the baskets stored before the mark get it here: those with a
 * `giftCardId`, or with a gift card of the merchant as their `consumerIdentToken` or among their
 * ContextIdentifiers.
 *
 * The change of `grant_basket` is kept in its file, `src/baskets/sql/grant_basket.sql`, which the
 * migrator applies whenever it changes (docs/architecture.md, "The stored-function layer").
 */
export const giftCardPrivacy: Migration = {
  name: '0026-gift-card-privacy',
  statements: [
    `UPDATE baskets b SET result = (b.result::jsonb || '{"giftCard": true}'::jsonb)::json
      WHERE b.result->>'giftCard' IS NULL
        AND (b.gift_card_id IS NOT NULL
          OR EXISTS (
            SELECT 1 FROM cards c
             WHERE c.merchant_id = b.merchant_id AND c.token_type = 1 AND c.state <> 'released'
               AND (c.token_id = b.consumer_token
                 OR c.token_id IN (
                   SELECT btrim(e) FROM json_array_elements_text(
                     CASE WHEN json_typeof(b.body->'ContextIdentifiers') = 'array'
                       THEN b.body->'ContextIdentifiers' ELSE '[]'::json END) AS e))))`,
  ],
};
