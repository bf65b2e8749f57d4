import type { Migration } from './migration.js';

/**
 * Loyalty points and campaign usages, booked by the grant of a basket.
 *
 * Points are kept in lots: each grant that earns points adds a lot that may expire; spending
 * takes from the oldest lots first. A consumer is a profile, or a customer card that is not
 * linked to one (its lots move to the profile when it is linked). Every change of a lot is also
 * written as an immutable movement.
 */
export const loyalty: Migration = {
  name: '0006-loyalty',
  statements: [
    `CREATE TABLE points_lots (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       id bigserial PRIMARY KEY,
       scheme_id bigint NOT NULL,
       profile_id bigint REFERENCES profiles(id),
       card_id bigint REFERENCES cards(id),
       points integer NOT NULL CHECK (points > 0),
       remaining integer NOT NULL CHECK (remaining >= 0 AND remaining <= points),
       earned_at timestamptz NOT NULL,
       expires_at timestamptz,
       tracking_unit_id text,
       basket_id text,
       CHECK ((profile_id IS NULL) <> (card_id IS NULL)))`,
    `CREATE INDEX points_lots_profile ON points_lots (profile_id, scheme_id) WHERE profile_id IS NOT NULL AND remaining > 0`,
    `CREATE INDEX points_lots_card ON points_lots (card_id, scheme_id) WHERE card_id IS NOT NULL AND remaining > 0`,
    `CREATE INDEX points_lots_basket ON points_lots (tracking_unit_id, basket_id)`,
    `CREATE TABLE points_movements (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       id bigserial PRIMARY KEY,
       scheme_id bigint NOT NULL,
       profile_id bigint,
       card_id bigint,
       kind text NOT NULL CHECK (kind IN ('earn', 'spend', 'return_earned', 'return_spent', 'move')),
       points integer NOT NULL,
       lot_id bigint REFERENCES points_lots(id),
       tracking_unit_id text,
       basket_id text,
       return_id text,
       created_at timestamptz NOT NULL)`,
    `CREATE INDEX points_movements_basket ON points_movements (tracking_unit_id, basket_id)`,
    `CREATE TABLE campaign_usages (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       tracking_unit_id text NOT NULL,
       basket_id text NOT NULL,
       campaign_id bigint NOT NULL,
       profile_id bigint,
       card_id bigint,
       used integer NOT NULL CHECK (used > 0),
       released integer NOT NULL DEFAULT 0 CHECK (released >= 0 AND released <= used),
       created_at timestamptz NOT NULL,
       PRIMARY KEY (tracking_unit_id, basket_id, campaign_id))`,
    `CREATE INDEX campaign_usages_profile ON campaign_usages (profile_id, campaign_id) WHERE profile_id IS NOT NULL`,
    `CREATE INDEX campaign_usages_card ON campaign_usages (card_id, campaign_id) WHERE card_id IS NOT NULL`,
    `CREATE TABLE basket_returns (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       tracking_unit_id text NOT NULL,
       basket_id text NOT NULL,
       return_id text NOT NULL,
       body json NOT NULL,
       response json NOT NULL,
       created_at timestamptz NOT NULL,
       PRIMARY KEY (tracking_unit_id, basket_id, return_id))`,
  ],
};
