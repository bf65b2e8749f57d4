import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../store/schema.js';

export type Db = Kysely<DB> | Transaction<DB>;

/** Who collects points: a profile, or a customer card not linked to one. */
export type Consumer =
  | { readonly profileId: number; readonly cardId?: undefined }
  | { readonly cardId: number; readonly profileId?: undefined };

export interface BasketRef {
  readonly merchantId: number;
  readonly trackingUnitId: string;
  readonly basketId: string;
}

/** The holder columns of a consumer's rows. */
export function owner(consumer: Consumer): { profile_id: number | null; card_id: number | null } {
  return consumer.profileId !== undefined
    ? { profile_id: consumer.profileId, card_id: null }
    : { profile_id: null, card_id: consumer.cardId };
}
