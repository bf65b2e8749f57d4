import type { Migration } from './migration.js';

/**
 * Points and campaign usages as immutable histories (docs/decisions.md "Points history").
 *
 * `points_movements` becomes append-only: every change of a lot (earn, spend, return take-back,
 * return give-back, the move of a linked card's lot) is one row, and a trigger refuses UPDATE and
 * DELETE. `points_lots` stays as the projection the hot paths read, updated in the same
 * transaction as the movement and verified against the movements by `npm run ledger:verify`.
 *
 * The movements written before this migration were not complete (a card-link move was one row
 * for two owners), so they are kept but marked `pre_opening` and left out of the sums; each lot
 * gets an `opening` movement of what it holds now, so the verification holds on an upgraded
 * database.
 *
 * Campaign usages get the same shape: `campaign_usage_movements` (use, release, card-link move)
 * is append-only and `campaign_usages` is its projection, one row per basket and campaign.
 *
 * The functions this migration made or changed are kept in their files,
 * `src/loyalty/sql/history_immutable.sql`, `src/loyalty/sql/points_lots_projection_only.sql`,
 * `src/loyalty/sql/campaign_usages_projection_only.sql`, which the migrator applies whenever they
 * change, before the numbered migrations, so that the triggers here find them
 * (docs/architecture.md, "The stored-function layer").
 */
export const pointsHistory: Migration = {
  name: '0010-points-history',
  statements: [
    `ALTER TABLE points_movements ADD COLUMN pre_opening boolean NOT NULL DEFAULT false`,
    `UPDATE points_movements SET pre_opening = true`,
    `ALTER TABLE points_movements ADD COLUMN expires_at timestamptz`,
    `ALTER TABLE points_movements ADD COLUMN link_card_id bigint`,
    `ALTER TABLE points_movements DROP CONSTRAINT points_movements_kind_check`,
    `ALTER TABLE points_movements ADD CONSTRAINT points_movements_kind CHECK (
       (pre_opening AND kind IN ('earn', 'spend', 'return_earned', 'return_spent', 'move'))
       OR (NOT pre_opening AND lot_id IS NOT NULL AND (profile_id IS NULL) <> (card_id IS NULL) AND CASE kind
         WHEN 'opening' THEN points >= 0
         WHEN 'earn' THEN points > 0
         WHEN 'return_spent' THEN points > 0
         WHEN 'spend' THEN points < 0
         WHEN 'return_earned' THEN points < 0
         WHEN 'move_out' THEN points <= 0 AND link_card_id IS NOT NULL
         WHEN 'move_in' THEN points >= 0 AND link_card_id IS NOT NULL
         ELSE false END))`,
    `INSERT INTO points_movements (merchant_id, scheme_id, profile_id, card_id, kind, points, lot_id,
       tracking_unit_id, basket_id, return_id, created_at, expires_at)
     SELECT merchant_id, scheme_id, profile_id, card_id, 'opening', remaining, id,
            tracking_unit_id, basket_id, NULL, now(), expires_at
       FROM points_lots ORDER BY id`,
    `CREATE INDEX points_movements_lot ON points_movements (lot_id, id)`,
    `CREATE TRIGGER points_movements_no_change BEFORE UPDATE OR DELETE ON points_movements
       FOR EACH ROW EXECUTE FUNCTION history_immutable()`,
    `CREATE TRIGGER points_lots_projection BEFORE UPDATE OR DELETE ON points_lots
       FOR EACH ROW EXECUTE FUNCTION points_lots_projection_only()`,
    `CREATE TABLE campaign_usage_movements (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       id bigserial PRIMARY KEY,
       tracking_unit_id text NOT NULL,
       basket_id text NOT NULL,
       campaign_id bigint NOT NULL,
       profile_id bigint,
       card_id bigint,
       kind text NOT NULL,
       count integer NOT NULL,
       return_id text,
       link_card_id bigint,
       created_at timestamptz NOT NULL,
       FOREIGN KEY (tracking_unit_id, basket_id, campaign_id)
         REFERENCES campaign_usages (tracking_unit_id, basket_id, campaign_id),
       CHECK (CASE kind
         WHEN 'opening' THEN count >= 0
         WHEN 'use' THEN count > 0
         WHEN 'release' THEN count <= 0
         WHEN 'move_out' THEN count <= 0 AND link_card_id IS NOT NULL
         WHEN 'move_in' THEN count >= 0 AND link_card_id IS NOT NULL
         ELSE false END))`,
    // A usage is counted once and released at most once.
    `CREATE UNIQUE INDEX campaign_usage_movements_once ON campaign_usage_movements
       (tracking_unit_id, basket_id, campaign_id, (kind IN ('opening', 'use')))
       WHERE kind IN ('opening', 'use', 'release')`,
    `CREATE TRIGGER campaign_usage_movements_no_change BEFORE UPDATE OR DELETE ON campaign_usage_movements
       FOR EACH ROW EXECUTE FUNCTION history_immutable()`,
    `INSERT INTO campaign_usage_movements (merchant_id, tracking_unit_id, basket_id, campaign_id,
       profile_id, card_id, kind, count, created_at)
     SELECT merchant_id, tracking_unit_id, basket_id, campaign_id, profile_id, card_id, 'opening', used, now()
       FROM campaign_usages ORDER BY created_at, tracking_unit_id, basket_id, campaign_id`,
    `INSERT INTO campaign_usage_movements (merchant_id, tracking_unit_id, basket_id, campaign_id,
       profile_id, card_id, kind, count, created_at)
     SELECT merchant_id, tracking_unit_id, basket_id, campaign_id, profile_id, card_id, 'release', -released, now()
       FROM campaign_usages WHERE released > 0 ORDER BY created_at, tracking_unit_id, basket_id, campaign_id`,
    `CREATE TRIGGER campaign_usages_projection BEFORE UPDATE OR DELETE ON campaign_usages
       FOR EACH ROW EXECUTE FUNCTION campaign_usages_projection_only()`,
  ],
};
