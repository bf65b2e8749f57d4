import type { RefundedPosition } from './order-read.store.js';

/**
 * What a refund gives back, pure (docs/decisions.md, "Reading back, lists and partial refunds").
 * A refund gives back part of the order's balance charge: an amount, or positions (a quantity of
 * each), or, with neither, all that remains. A position's refunds are priced cumulatively: after
 * refunds of q of its Q units the position has given back round(price x q / Q) in all (half away
 * from zero), so its last refund gives back exactly what is left of its price and the refunds of a
 * position never add up to more than its price. Quantities are counted in thousandths, as orders
 * take them.
 */

export interface RefundAsk {
  readonly amount?: number | undefined;
  readonly positions?: readonly { readonly positionId: number; readonly quantity: number }[] | undefined;
}

export interface RefundPlanInput {
  readonly chargedMinor: number;
  readonly refundedMinor: number;
  /** The order's positions as priced: quantity and price after campaigns (gross, minor units). */
  readonly positions: readonly { positionId: number; quantity: number; priceMinor: number }[];
  /** Every position earlier refunds of the order took back. */
  readonly refunded: readonly RefundedPosition[];
  readonly ask: RefundAsk;
}

export type RefundRefusal =
  | { reason: 'amount_and_positions' }
  | { reason: 'quantity_not_thousandths'; positionId: number }
  | { reason: 'position_unknown'; positionId: number }
  | { reason: 'quantity_exceeds'; positionId: number; remainingQuantity: number }
  | { reason: 'exceeds_refundable'; refundableAmount: number };

export type RefundPlan =
  | {
      ok: true;
      amountMinor: number;
      positions: RefundedPosition[];
      /** True when the order is then refunded in whole. */
      whole: boolean;
    }
  | ({ ok: false } & RefundRefusal);

/** Thousandths of a quantity, or null when it has more than three decimals. */
export function thousandths(quantity: number): number | null {
  const milli = Math.round(quantity * 1000);
  return Math.abs(quantity * 1000 - milli) < 1e-6 ? milli : null;
}

/** round(a x b / c) half away from zero, for a, b >= 0 and c > 0, exactly. */
function mulDivRound(a: number, b: number, c: number): number {
  const n = 2n * BigInt(a) * BigInt(b) + BigInt(c);
  return Number(n / (2n * BigInt(c)));
}

export function planOrderRefund(input: RefundPlanInput): RefundPlan {
  const { ask } = input;
  const refundable = input.chargedMinor - input.refundedMinor;
  if (ask.amount !== undefined && ask.positions !== undefined) {
    return { ok: false, reason: 'amount_and_positions' };
  }
  if (ask.amount === undefined && ask.positions === undefined) {
    return { ok: true, amountMinor: refundable, positions: [], whole: true };
  }
  const out: RefundedPosition[] = [];
  let amount = ask.amount ?? 0;
  const seen = new Set<number>();
  for (const want of ask.positions ?? []) {
    const position = input.positions.find((p) => p.positionId === want.positionId);
    if (!position || seen.has(want.positionId)) {
      return { ok: false, reason: 'position_unknown', positionId: want.positionId };
    }
    seen.add(want.positionId);
    const q = thousandths(want.quantity);
    const total = thousandths(position.quantity);
    if (q === null || total === null) {
      return { ok: false, reason: 'quantity_not_thousandths', positionId: want.positionId };
    }
    let priorQ = 0;
    let priorAmount = 0;
    for (const r of input.refunded) {
      if (r.positionId !== want.positionId) continue;
      priorQ += thousandths(r.quantity) ?? 0;
      priorAmount += r.amountMinor;
    }
    if (q > total - priorQ) {
      return {
        ok: false,
        reason: 'quantity_exceeds',
        positionId: want.positionId,
        remainingQuantity: (total - priorQ) / 1000,
      };
    }
    const given = mulDivRound(position.priceMinor, priorQ + q, total) - priorAmount;
    out.push({ positionId: want.positionId, quantity: want.quantity, amountMinor: given });
    amount += given;
  }
  if (refundable <= 0 || amount > refundable) {
    return { ok: false, reason: 'exceeds_refundable', refundableAmount: Math.max(0, refundable) };
  }
  return { ok: true, amountMinor: amount, positions: out, whole: amount === refundable };
}

/**
 * Whether a refund asked again is the one made first (docs/decisions.md, "Refunding an order from
 * the portal"): the same amount asked (null: none), and the same positions in the same quantities,
 * in whatever order they are listed.
 */
export function sameRefundAsk(
  first: { readonly askedMinor: number | null; readonly positions: readonly RefundedPosition[] },
  ask: RefundAsk,
): boolean {
  if (first.askedMinor !== (ask.amount ?? null)) return false;
  const asked = ask.positions ?? [];
  if (asked.length !== first.positions.length) return false;
  if (new Set(asked.map((p) => p.positionId)).size !== asked.length) return false;
  const taken = new Map(first.positions.map((p) => [p.positionId, thousandths(p.quantity)]));
  return asked.every((p) => taken.has(p.positionId) && taken.get(p.positionId) === thousandths(p.quantity));
}
