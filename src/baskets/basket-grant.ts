import type { Kysely } from 'kysely';
import { loyaltyToWire, rewardsToWire } from './engine-adapter.js';
import { type RuleSet, ruleVersions } from '../campaigns/live-rules.store.js';
import { buildCampaignIndex, evaluateBasket } from '../engine/index.js';
import type { ConsumerState, EngineResult } from '../engine/types.js';
import { newReceiptId } from '../receipts/receipt.store.js';
import { AppError } from '../shared/errors.js';
import type { DB } from '../store/schema.js';
import type { BasketTerminal, LegacyBodyReader } from './basket.types.js';
import { rebuildEngineBasket } from './basket-rewards.js';
import { parseBasket } from './basket.parse.js';
import { fitBudgets } from '../campaigns/campaign-budgets.js';
import { tierChanges } from '../loyalty/tier-change.js';
import { decodeStoredBasket } from './stored-basket.js';
import type { BasketDeps } from './basket-deps.js';
import type { GrantBooking, GrantResponse, PresentedCode, StoredGrant } from './basket-model.js';
import {
  type GrantOutcome,
  type GrantWrite,
  type ConsumerStateJson,
  writeGrant,
} from './grant-write.store.js';

const DAY_MS = 86_400_000;
const EMPTY_RESULT: EngineResult = { rewards: [], loyalty: [], explanations: [], couponUsages: [] };
/** Evaluations booked in batches before a grant is evaluated and booked under its locks. */
const OPTIMISTIC_EVALUATIONS = 2;

/** The result as booked when the POS did not deduct the rewards: points earned, none spent. */
function notRedeemed(result: EngineResult): EngineResult {
  return {
    ...result,
    rewards: [],
    couponUsages: [],
    loyalty: result.loyalty.map((l) => ({
      ...l,
      spentPoints: 0,
      newPoints: l.previousPoints + l.earnedPoints,
      grossRewardMinor: 0,
      positionId: 0,
    })),
  };
}

/** The grant as stored and answered (the write adds the receipt id and the booking's consumer). */
function storedGrant(
  basketId: string,
  result: EngineResult,
  exponent: number,
  booking: GrantBooking,
): Omit<StoredGrant, 'receiptId'> {
  return {
    response: {
      BasketId: basketId,
      Granted: true,
      Rewards: rewardsToWire(result, exponent),
      LoyaltyInfo: loyaltyToWire(result, exponent),
    },
    booking,
  };
}

/**
 * The codes a grant redeems: for each campaign it applied (a usage counted), the first of the
 * campaign's free codes the basket presented; a campaign applied without a code redeems none.
 */
function codesToRedeem(result: EngineResult, freeCodes: readonly PresentedCode[]): string[] {
  const codes: string[] = [];
  for (const usage of result.couponUsages) {
    if (usage.count <= 0) continue;
    const first = freeCodes
      .filter((c) => c.campaignId === usage.campaignId)
      .map((c) => c.code)
      .sort()[0];
    if (first !== undefined) codes.push(first);
  }
  return codes.sort();
}

const idMap = (byId: Readonly<Record<string, number>>) =>
  new Map(Object.entries(byId).map(([id, n]) => [Number(id), n]));

/**
 * Evaluates the basket with the exact campaign and scheme versions of its upload and the
 * consumer's points and usages as the database just read them (docs/decisions.md "Grant and
 * points booking"); the write books it only if these still hold under the consumer's lock.
 */
async function evaluateForGrant(
  db: Kysely<DB>,
  live: RuleSet | null,
  grant: GrantWrite,
  found: Extract<GrantOutcome, { status: 'evaluate' }>,
  readLegacyBody: LegacyBodyReader,
): Promise<GrantWrite> {
  const stored = found.result;
  const { inputs } = stored.engine;
  if (inputs === null) throw new Error('a basket no rule touched is not evaluated');
  // A basket uploaded before the parsed basket was stored is read from its body (docs/decisions.md).
  const basket =
    decodeStoredBasket(stored.basket) ??
    parseBasket(readLegacyBody(found.body), inputs.merchantCurrency, inputs.timeZone);
  const { campaigns, schemes } = await ruleVersions(db, grant.merchantId, stored.engine, live);
  const { consumer } = found;
  const state: ConsumerState | null =
    consumer === null || found.state === null
      ? null
      : {
          points: idMap(found.state.points),
          usages: idMap(found.state.usages),
          ...(found.state.tiers === undefined ? {} : { tierMeasures: idMap(found.state.tiers) }),
        };
  // The basket's unique codes that no grant holds now (docs/decisions.md, "Unique codes").
  const free = new Set(found.codes);
  const freeCodes = (inputs.codes ?? []).filter((c) => free.has(c.code));
  const engineBasket = rebuildEngineBasket(basket, inputs, freeCodes);
  const evaluate = (without: ReadonlySet<number>) => {
    const open = without.size === 0 ? campaigns : campaigns.filter((c) => !without.has(c.id));
    const evaluated = evaluateBasket(buildCampaignIndex(open), schemes, engineBasket, state);
    return grant.redeemedInPos ? evaluated : notRedeemed(evaluated);
  };
  // A campaign whose budget its rewards no longer fit is left out (docs/decisions.md, "Budgets").
  const { result, booked: budgets } = fitBudgets(evaluate, found.budgets);
  const codes = codesToRedeem(result, freeCodes);
  const expiryDays = new Map(schemes.map((s) => [s.id, s.pointsExpireAfterDays]));
  const loyalty: GrantBooking['loyalty'] = [];
  if (consumer !== null) {
    for (const line of result.loyalty) {
      const days = expiryDays.get(line.schemeId) ?? null;
      loyalty.push({
        schemeId: line.schemeId,
        earned: line.earnedPoints,
        spent: line.spentPoints,
        positionId: line.positionId,
        grossRewardMinor: line.grossRewardMinor,
        expiresAtMs: days === null ? null : grant.nowMs + days * DAY_MS,
      });
    }
  }
  // The tier changes of this booking: its own points, or the basket's gross for spend, added to
  // the measures it was evaluated on (docs/decisions.md, "Status tiers", "Tier-change events").
  const tierEvents =
    consumer === null || state?.tierMeasures === undefined
      ? []
      : tierChanges(
          schemes,
          state.tierMeasures,
          (scheme, measure) =>
            measure === 'spend'
              ? basket.positions.reduce((sum, p) => sum + p.lineGrossMinor, 0)
              : (result.loyalty.find((l) => l.schemeId === scheme.id)?.earnedPoints ?? 0),
          { profileId: consumer.profileId ?? null, cardId: consumer.cardId ?? null },
          'grant',
          grant.nowMs,
        );
  const booking: GrantBooking = {
    consumer,
    redeemedInPos: grant.redeemedInPos,
    grantedAtMs: grant.nowMs,
    rewards: result.rewards,
    loyalty,
    usages: result.couponUsages,
  };
  return {
    ...grant,
    evaluated: {
      revision: found.revision,
      consumer,
      state: found.state satisfies ConsumerStateJson | null,
      booking: {
        loyalty,
        usages: result.couponUsages,
        codesSeen: [...found.codes],
        codes,
        budgetsSeen: [...found.budgets],
        budgets,
        tierChanges: tierEvents,
      },
    },
    stored: storedGrant(grant.basketId, result, stored.exponent, booking),
  };
}

/** The write booked nothing and asks for the grant again: evaluated anew, or from the start. */
const retry = (outcome: GrantOutcome) => outcome.status === 'evaluate' || outcome.status === 'changed';

/** The terminal of a grant as a remembered answer described it (the write re-checks it). */
export interface RememberedTerminal {
  readonly devKeyId: number;
  readonly checksumSecret: string;
}

/** The terminal changed under a remembered answer: nothing was booked; authenticate afresh. */
export class GrantTerminalChanged extends Error {}

/**
 * Grant: the bill is paid and final. In one transaction: earned points are committed, redeemed
 * points spent (oldest first), coupon usages counted, the receipt made, the purchase notification
 * queued and the booking stored (`grant_basket`, sql/grant_basket.sql). A second grant answers the
 * same body and books nothing. `redeemedInPos=false`: the POS did not deduct the rewards, so none is
 * booked as redeemed (no usage counted, no points spent); earned points count.
 *
 * Grants go to the database in batches (`GrantWriter`, group commit). A basket no rule touched at
 * its upload is booked in one go; any other comes back to be evaluated on the consumer's points
 * and usages as they are, and is booked on the next write if those still hold. A consumer whose
 * points keep changing meanwhile gets the evaluation and the booking in one transaction that
 * holds the basket's and the consumer's locks.
 */
export async function grantBasket(
  deps: BasketDeps,
  unit: BasketTerminal,
  basketId: string,
  redeemedInPos: boolean,
  readLegacyBody: LegacyBodyReader,
  remembered: RememberedTerminal | null = null,
): Promise<GrantResponse> {
  const nowMs = deps.clock.nowMs();
  const booking: GrantBooking = {
    consumer: null,
    redeemedInPos,
    grantedAtMs: nowMs,
    rewards: [],
    loyalty: [],
    usages: [],
  };
  const first: GrantWrite = {
    merchantId: unit.merchantId,
    unitId: unit.unitId,
    basketId,
    nowMs,
    redeemedInPos,
    receiptId: newReceiptId(nowMs),
    terminal: remembered,
    evaluated: null,
    stored: storedGrant(basketId, EMPTY_RESULT, 0, booking),
  };
  let grant = first;
  let outcome = await deps.grants.write(grant);
  for (let i = 0; i < OPTIMISTIC_EVALUATIONS && retry(outcome); i++) {
    if (outcome.status === 'evaluate') {
      const live = await deps.ruleSets.get(unit.merchantId, unit.rulesVersion);
      grant = await evaluateForGrant(deps.db, live, first, outcome, readLegacyBody);
    } else {
      grant = first;
    }
    outcome = await deps.grants.write(grant);
  }
  if (retry(outcome)) {
    // Evaluated and booked in one transaction: its first write keeps the basket's and the
    // consumer's locks until the booking.
    [grant, outcome] = await deps.db.transaction().execute(async (trx) => {
      const found = await writeGrant(trx, first);
      if (found.status !== 'evaluate') return [first, found] as const;
      // Read in this transaction: the rule sets' cache would read outside it.
      const evaluated = await evaluateForGrant(trx, null, first, found, readLegacyBody);
      return [evaluated, await writeGrant(trx, evaluated)] as const;
    });
  }
  switch (outcome.status) {
    case 'booked':
      if (outcome.notified) deps.nudgeOutbox?.();
      return grant.stored.response;
    case 'granted':
      return outcome.response;
    case 'unknown':
      throw new AppError('basketUnknown');
    case 'terminal_changed':
      throw new GrantTerminalChanged();
    case 'evaluate':
    case 'changed':
      throw new Error('the grant was not booked under its locks');
  }
}
