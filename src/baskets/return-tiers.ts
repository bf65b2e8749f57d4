import type { Kysely } from 'kysely';
import { ruleVersions } from '../campaigns/live-rules.store.js';
import type { Consumer } from '../loyalty/consumer.js';
import { TIER_CHANGED, tierChanges } from '../loyalty/tier-change.js';
import { tierMeasures } from '../loyalty/tiers.store.js';
import { enqueueOutbox } from '../outbox/outbox.store.js';
import type { DB } from '../store/schema.js';
import type { StoredResult } from './basket-model.js';

/**
 * The tier changes of a return (docs/decisions.md, "Status tiers", "Tier-change events"): the
 * consumer's measures of the basket's schemes with tiers read before the return books and again
 * after it, in its transaction; each scheme whose tier differs gets its event in the outbox. A
 * basket whose schemes had no tiers at its upload reads nothing. Answers `finish`, to call once the
 * return booked, which answers how many events it wrote.
 */
export async function watchReturnTiers(
  trx: Kysely<DB>,
  merchantId: number,
  engine: StoredResult['engine'],
  holder: Consumer,
  timeZone: string,
  nowMs: number,
): Promise<() => Promise<number>> {
  const bases = engine.tierBases ?? [];
  if (bases.length === 0) return () => Promise.resolve(0);
  const before = await tierMeasures(trx, merchantId, holder, bases, timeZone, nowMs);
  return async () => {
    const after = await tierMeasures(trx, merchantId, holder, bases, timeZone, nowMs);
    const tiered = new Set(bases.map((b) => b.schemeId));
    const refs = { campaigns: [], schemes: engine.schemes.filter((s) => tiered.has(s.id)) };
    const { schemes } = await ruleVersions(trx, merchantId, refs, null);
    const events = tierChanges(
      schemes,
      before,
      (scheme) => (after.get(scheme.id) ?? 0) - (before.get(scheme.id) ?? 0),
      { profileId: holder.profileId ?? null, cardId: holder.cardId ?? null },
      'return',
      nowMs,
    );
    for (const event of events) {
      await enqueueOutbox(trx, {
        merchantId,
        topic: TIER_CHANGED,
        payload: { ...event },
        notBefore: new Date(nowMs),
        createdAt: new Date(nowMs),
      });
    }
    return events.length;
  };
}
