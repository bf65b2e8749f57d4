import type { Kysely } from 'kysely';
import type {
  ReceiptPayment,
  ReceiptPosition,
  ReceiptSource,
  ReceiptQuantity,
  ReceiptView,
} from '../receipts/receipt-view.js';
import { receiptLanguage } from '../receipts/receipt-text.js';
import { type Decimal, divRoundHalfAwayFromZero, parseDecimal, powerOfTen } from '../shared/money.js';
import type { DB } from '../store/schema.js';
import { basketForReceipt, basketReturnsOf, grantedBillPdf, tillPaymentsOf } from './basket.store.js';
import type { PositionBody } from './basket.types.js';
import { decimalText, decodeStoredBasket } from './stored-basket.js';
import { rewardsByPosition } from './return-rules.js';

/**
 * The `pos_basket` receipt source: a granted POS basket as a receipt (docs/decisions.md,
 * "Notifications, receipts and the consumer portal"). Names, ProductProps and VAT rates come
 * from the body the till sent; prices and quantities from the basket as the upload parsed it;
 * rewards and points from what the grant booked; returns from the stored returns.
 */

function splitRef(ref: string): [string, string] | null {
  const i = ref.indexOf('/');
  return i < 0 ? null : [ref.slice(0, i), ref.slice(i + 1)];
}

/** value × part / whole, rounded half away from zero (a returned share of a line). */
function share(valueMinor: number, part: Decimal, whole: Decimal): number {
  if (whole.units === 0n) return 0;
  const n = BigInt(valueMinor) * part.units * powerOfTen(whole.scale);
  const d = whole.units * powerOfTen(part.scale);
  return Number(divRoundHalfAwayFromZero(n, d));
}

/** The tax in a gross amount at a rate: gross × rate / (100 + rate), rounded half away from zero. */
export function taxOfGross(grossMinor: number, rate: Decimal): number {
  const hundred = 100n * powerOfTen(rate.scale);
  return Number(divRoundHalfAwayFromZero(BigInt(grossMinor) * rate.units, hundred + rate.units));
}

function addressOf(o: {
  street: string | null;
  postal_index: string | null;
  city: string | null;
}): string | null {
  const place = [o.postal_index, o.city].filter((x) => x).join(' ');
  const text = [o.street, place].filter((x) => x).join(', ');
  return text === '' ? null : text;
}

/** What was paid from a balance, from a gift card, and the rest, which the till took otherwise. */
function paymentsOf(totalMinor: number, paid: readonly { amountMinor: number; giftCard: boolean }[]) {
  const balance = paid.filter((p) => !p.giftCard).reduce((s, p) => s + p.amountMinor, 0);
  const giftCard = paid.filter((p) => p.giftCard).reduce((s, p) => s + p.amountMinor, 0);
  const out: ReceiptPayment[] = [];
  if (balance > 0) out.push({ method: 'balance', amountMinor: balance });
  if (giftCard > 0) out.push({ method: 'gift_card', amountMinor: giftCard });
  if (totalMinor - balance - giftCard > 0) {
    out.push({ method: 'other', amountMinor: totalMinor - balance - giftCard });
  }
  return out;
}

/**
 * The rewards on single positions (the positions' discounts), summed per campaign or scheme reward
 * under the name the grant booked, in the order they were given.
 */
function positionRewardsByName(
  rewards: readonly {
    rewardType: number;
    source: string;
    couponId: number;
    name: string;
    grossRewardMinor: number;
  }[],
): { description: string; valueMinor: number }[] {
  const byKey = new Map<string, { description: string; valueMinor: number }>();
  for (const r of rewards) {
    if (r.rewardType !== 1 || r.grossRewardMinor <= 0) continue;
    const key = `${r.source}:${r.couponId}`;
    const slot = byKey.get(key) ?? { description: r.name, valueMinor: 0 };
    slot.valueMinor += r.grossRewardMinor;
    byKey.set(key, slot);
  }
  return [...byKey.values()];
}

/** The till's BillNumber when it sent one, else the basket id (the POS interface's example: the bill number). */
function billNumberOf(body: unknown, basketId: string): string {
  const sent = (body as { BillNumber?: unknown }).BillNumber;
  const text = typeof sent === 'string' || typeof sent === 'number' ? String(sent).trim() : '';
  return text === '' ? basketId : text;
}

export async function loadBasketReceipt(
  db: Kysely<DB>,
  merchantId: number,
  sourceRef: string,
): Promise<ReceiptView | undefined> {
  const key = splitRef(sourceRef);
  if (!key) return undefined;
  const row = await basketForReceipt(db, merchantId, key[0], key[1]);
  if (!row || row.grant_result === null) return undefined;
  const stored = decodeStoredBasket(row.result.basket);
  const bodyPositions = ((row.body as { Positions?: PositionBody[] }).Positions ?? []).filter(
    (p) => p && typeof p === 'object',
  );
  const byId = new Map(bodyPositions.map((p) => [p.PositionId, p]));
  const { booking, response } = row.grant_result;
  // Each position's product rewards (its discount) and its share of the bill rewards, by the rule
  // a return refunds by (docs/decisions.md, "Receipt content for POS baskets").
  const storedPositions = stored?.positions ?? [];
  const parts = rewardsByPosition(storedPositions, booking.rewards);
  const vatByRate = new Map<string, { rate: Decimal; grossMinor: number }>();
  const positions: ReceiptPosition[] = [];
  const sold = new Map<number, { amount: Decimal; grossMinor: number; name: string; weighed: boolean }>();
  storedPositions.forEach((p, i) => {
    const body = byId.get(p.positionId);
    const discountMinor = parts[i]?.productMinor ?? 0;
    const description = body?.ProductName ?? p.productId ?? `#${p.positionId}`;
    positions.push({
      description,
      quantity: decimalText(p.amount),
      weighed: p.unit === 1,
      grossMinor: p.lineGrossMinor,
      discountMinor,
      props: Object.entries(body?.ProductProps ?? {}).map(([name, value]) => ({
        name,
        value: String(value),
      })),
    });
    sold.set(p.positionId, {
      amount: p.amount,
      grossMinor: p.lineGrossMinor - discountMinor,
      name: description,
      weighed: p.unit === 1,
    });
    // The bill rewards are taken off the rates with each position's share, so that the table adds
    // up to what was paid; a position without a rate is left out of it.
    const rate = body?.VatInPercent === undefined ? null : parseDecimal(body.VatInPercent);
    if (rate !== null) {
      const text = decimalText(rate);
      const slot = vatByRate.get(text) ?? { rate, grossMinor: 0 };
      slot.grossMinor += p.lineGrossMinor - discountMinor - (parts[i]?.billMinor ?? 0);
      vatByRate.set(text, slot);
    }
  });
  const billRewards = booking.rewards.filter((r) => r.rewardType === 2);
  const rewardsMinor = booking.rewards.reduce((s, r) => s + r.grossRewardMinor, 0);
  const totalGrossMinor = positions.reduce((s, p) => s + p.grossMinor, 0) - rewardsMinor;
  const vats = [...vatByRate.entries()]
    .sort((a, b) =>
      Number(
        a[1].rate.units * powerOfTen(8 - a[1].rate.scale) - b[1].rate.units * powerOfTen(8 - b[1].rate.scale),
      ),
    )
    .map(([text, v]) => {
      const taxMinor = taxOfGross(v.grossMinor, v.rate);
      return {
        rateText: text,
        netMinor: v.grossMinor - taxMinor,
        taxMinor,
        grossMinor: v.grossMinor,
      };
    });
  const returnsRows = await basketReturnsOf(db, key[0], key[1]);
  const schemeNames = new Map(response.LoyaltyInfo.map((x) => [x.LoyaltyId, x.Name]));
  const returns: ReceiptView['returns'] = returnsRows.map((r) => {
    let amountMinor = 0;
    const items: ReceiptQuantity[] = [];
    for (const rp of r.response.booking.positions) {
      const s = sold.get(rp.positionId);
      const amount = parseDecimal(rp.amount);
      if (!s || amount === null) continue;
      amountMinor += share(s.grossMinor, amount, s.amount);
      items.push({ quantity: decimalText(amount), weighed: s.weighed, name: s.name });
    }
    const points = r.response.booking.loyalty
      .map((l) => ({
        schemeName: schemeNames.get(l.schemeId) ?? `#${l.schemeId}`,
        change: l.givenBack - l.taken,
      }))
      .filter((p) => p.change !== 0);
    // What the till refunded, as the portal and the dashboard count a return: the line gross
    // taken back less the rewards it refunded, a share of the bill rewards among them
    // (docs/decisions.md, "RefundedRewardValue"); returns booked before the gross was kept, the
    // positions' value less their own discounts.
    const { returnedGrossMinor, refundedMinor } = r.response.booking;
    return {
      kind: 'return' as const,
      time: new Date(r.created_at),
      amountMinor: returnedGrossMinor === undefined ? amountMinor : returnedGrossMinor - refundedMinor,
      items,
      toBalanceMinor: 0,
      points,
    };
  });
  const pointsTakenBack = new Map<number, number>();
  for (const r of returnsRows) {
    for (const l of r.response.booking.loyalty) {
      pointsTakenBack.set(l.schemeId, (pointsTakenBack.get(l.schemeId) ?? 0) + l.taken - l.givenBack);
    }
  }
  const points = booking.loyalty.map((l) => {
    const wire = response.LoyaltyInfo.find((x) => x.LoyaltyId === l.schemeId);
    const after = wire?.Details[wire.Details.length - 1]?.NewPoints ?? null;
    const back = pointsTakenBack.get(l.schemeId) ?? 0;
    return {
      schemeName: wire?.Name ?? `#${l.schemeId}`,
      earned: l.earned,
      redeemed: l.spent,
      balanceAfter: after === null ? null : after - back,
    };
  });
  const paid = await tillPaymentsOf(db, merchantId, {
    unitId: key[0],
    uploadedAt: new Date(row.uploaded_at),
    grantedAt: new Date(row.granted_at ?? row.uploaded_at),
    profileId: row.profile_id,
    tokens: [row.consumer_token, row.gift_card_id].filter((x): x is string => x !== null && x !== ''),
  });
  return {
    merchantName: row.display_name,
    issuer: { legalName: row.legal_name, address: row.legal_address, taxNumber: row.tax_number },
    billNumber: billNumberOf(row.body, key[1]),
    currency: row.currency,
    language: receiptLanguage(row.language ?? null, row.time_zone),
    outlet:
      row.outlet_name === null && row.street === null
        ? null
        : {
            name: row.outlet_name ?? null,
            address: addressOf({
              street: row.street ?? null,
              postal_index: row.postal_index ?? null,
              city: row.city ?? null,
            }),
          },
    time: new Date(row.timestamp_utc),
    timeOffsetMinutes: row.timestamp_offset_minutes,
    timeZone: row.time_zone,
    positions,
    rewards: [...billRewards.map((r) => ({ description: r.name, valueMinor: r.grossRewardMinor }))],
    includedDiscounts: positionRewardsByName(booking.rewards),
    vats,
    totalGrossMinor,
    payments: paymentsOf(totalGrossMinor, paid),
    points,
    returns,
    hasBillPdf: row.has_pdf === true,
    status: returns.length > 0 ? 'returned_in_part' : null,
  };
}

export const posBasketReceipts: ReceiptSource = {
  kind: 'pos_basket',
  load: loadBasketReceipt,
  billPdf: basketBillPdf,
};

/** The BillPdf the till sent with the basket, if any. */
export async function basketBillPdf(
  db: Kysely<DB>,
  merchantId: number,
  sourceRef: string,
): Promise<Buffer | null> {
  const key = splitRef(sourceRef);
  if (!key) return null;
  return grantedBillPdf(db, merchantId, key[0], key[1]);
}
