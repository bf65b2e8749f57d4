import { grant } from './0020-grant.js';
import type { Migration } from './migration.js';

/**
 * A basket bought or paid with a gift card stays out of the consumer's view (docs/decisions.md,
 * "Gift-card privacy and hardened pages"; POS interface v3: a gift card's holder has "no public
 * consumer-portal access to its activity (loading, unloading, baskets bought or paid with it)").
 * The upload marks such a basket in its stored result (`giftCard: true`); `grant_basket` queues no
 * purchase notification for it, and the baskets stored before the mark get it here: those with a
 * `giftCardId`, or with a gift card of the merchant as their `consumerIdentToken` or among their
 * ContextIdentifiers.
 */
const NOTIFY = `       -- A consumer known by profile is notified (the payload of a purchase notification).
       IF v_profile IS NOT NULL THEN`;
const NOTIFY_UNLESS_GIFT_CARD = `       -- A consumer known by profile is notified (the payload of a purchase notification), but
       -- never of a basket bought or paid with a gift card.
       IF v_profile IS NOT NULL AND b.result->>'giftCard' IS NULL THEN`;

const original = grant.statements.find((s) => s.includes('CREATE FUNCTION grant_basket('));
if (
  original === undefined ||
  original.indexOf(NOTIFY) < 0 ||
  original.indexOf(NOTIFY) !== original.lastIndexOf(NOTIFY)
) {
  throw new Error('migration 0026: the notification step is not once in grant_basket (migration 0020)');
}

export const giftCardPrivacy: Migration = {
  name: '0026-gift-card-privacy',
  statements: [
    original
      .replace('CREATE FUNCTION grant_basket(', 'CREATE OR REPLACE FUNCTION grant_basket(')
      .replace(NOTIFY, NOTIFY_UNLESS_GIFT_CARD),
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
