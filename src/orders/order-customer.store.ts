import { type Kysely, sql } from 'kysely';
import type { DB } from '../store/schema.js';

/**
 * The customer an order's profileReference names and their uses of the campaigns given, in one
 * statement (`resolve_profile_reference`, `consumer_state`): what the batched writer's order is
 * priced on before `book_orders` checks the uses again under the customer's lock
 * (docs/decisions.md, "Usage limits and status tiers on online orders"). Null: the reference names
 * no usable profile.
 */
export async function customerUsesByReference(
  db: Kysely<DB>,
  merchantId: number,
  reference: { readonly text: string; readonly otpSha256: string },
  campaignIds: readonly number[],
  nowMs: number,
): Promise<{ readonly profileId: number; readonly usages: Map<number, number> } | null> {
  const now = new Date(nowMs);
  const { rows } = await sql<{ profile_id: string | number; usages: Record<string, number> | null }>`
    SELECT x.profile_id,
           consumer_state(${merchantId}::bigint, x.profile_id, NULL::bigint, '{}'::bigint[],
             ${[...campaignIds]}::bigint[], ${now}::timestamptz)->'usages' AS usages
      FROM resolve_profile_reference(${merchantId}::bigint, ${reference.text}::text,
             ${reference.otpSha256}::text, ${now}::timestamptz) x`.execute(db);
  const row = rows[0];
  if (row === undefined) return null;
  return {
    profileId: Number(row.profile_id),
    usages: new Map(Object.entries(row.usages ?? {}).map(([id, n]) => [Number(id), Number(n)])),
  };
}
