import type { Generated } from 'kysely';
import type { Timestamp } from './columns.js';

/** Row types of the points history and campaign usages. */

export interface PointsLotsTable {
  merchant_id: number;
  id: Generated<number>;
  scheme_id: number;
  profile_id: number | null;
  card_id: number | null;
  points: number;
  remaining: number;
  earned_at: Timestamp;
  expires_at: Timestamp | null;
  tracking_unit_id: string | null;
  basket_id: string | null;
}

export interface PointsMovementsTable {
  merchant_id: number;
  id: Generated<number>;
  scheme_id: number;
  profile_id: number | null;
  card_id: number | null;
  /** `move` only in movements written before the history was verified (`pre_opening`). */
  kind: PointsMovementKind | 'move';
  points: number;
  lot_id: number | null;
  tracking_unit_id: string | null;
  basket_id: string | null;
  return_id: string | null;
  created_at: Timestamp;
  /** The lot's expiry, on the movement that creates the lot. */
  expires_at: Timestamp | null;
  /** The card whose linking to a profile moved the lot. */
  link_card_id: number | null;
  pre_opening: Generated<boolean>;
}

export type PointsMovementKind =
  'opening' | 'earn' | 'spend' | 'return_earned' | 'return_spent' | 'move_out' | 'move_in';

export interface CampaignUsageMovementsTable {
  merchant_id: number;
  id: Generated<number>;
  tracking_unit_id: string;
  basket_id: string;
  campaign_id: number;
  profile_id: number | null;
  card_id: number | null;
  kind: 'opening' | 'use' | 'release' | 'move_out' | 'move_in';
  count: number;
  return_id: string | null;
  link_card_id: number | null;
  created_at: Timestamp;
}

export interface CampaignUsagesTable {
  merchant_id: number;
  tracking_unit_id: string;
  basket_id: string;
  campaign_id: number;
  profile_id: number | null;
  card_id: number | null;
  used: number;
  released: Generated<number>;
  created_at: Timestamp;
}
