import type { PricedBasket } from './pricing.js';

/**
 * The order answer of checkout v1, in the seed's field names and minor units: positions with
 * price and VAT, the VAT table, and (for orders) the balance movement and the receipt URL.
 */

export interface VatOut {
  rate: number;
  gross: number;
  net: number;
  taxAmount: number;
}

export interface ReservationOut {
  oldAmountExcludingReservation: number;
  newAmountExcludingReservation: number;
  reservedAmountRemaining: number;
  reservedAmountUsed: number;
  unreservedAmountUsed: number;
}

export interface BalanceOut {
  oldAmount: number;
  newAmount: number;
  currency: string;
  reservation?: ReservationOut;
}

export interface OrderAnswer {
  startTimestamp?: string;
  endTimestamp?: string;
  orderTimestamp: string;
  basketId: string;
  profileReference?: string;
  menuId: number;
  checkInIds?: number[];
  positions: { positionId: number; productPlu: string; quantity: number; price: number; vat: VatOut }[];
  consumptionMode: 'OnPremise' | 'Takeaway';
  receiptUrl?: string;
  totalGross: number;
  currency: string;
  vats: VatOut[];
  balance?: BalanceOut;
  status?: 'completed' | 'refunded';
}

export interface AnswerHead {
  startTimestamp?: string;
  endTimestamp?: string;
  orderTimestamp: string;
  basketId: string;
  profileReference?: string;
  menuId: number;
  checkInIds?: number[];
  consumptionMode: 0 | 1;
  currency: string;
}

/** Field order as in the seed, so the text of an answer is the same for the same order. */
export function orderAnswer(
  head: AnswerHead,
  priced: PricedBasket,
  extra: { receiptUrl?: string; balance?: BalanceOut; status?: 'completed' | 'refunded' } = {},
): OrderAnswer {
  const out: OrderAnswer = {
    ...(head.startTimestamp !== undefined ? { startTimestamp: head.startTimestamp } : {}),
    ...(head.endTimestamp !== undefined ? { endTimestamp: head.endTimestamp } : {}),
    orderTimestamp: head.orderTimestamp,
    basketId: head.basketId,
    ...(head.profileReference !== undefined ? { profileReference: head.profileReference } : {}),
    menuId: head.menuId,
    ...(head.checkInIds !== undefined ? { checkInIds: head.checkInIds } : {}),
    positions: priced.positions.map((p) => ({
      positionId: p.positionId,
      productPlu: p.productPlu,
      quantity: p.quantity,
      price: p.priceMinor,
      vat: {
        rate: Number(p.vat.rateText),
        gross: p.vat.grossMinor,
        net: p.vat.netMinor,
        taxAmount: p.vat.taxMinor,
      },
    })),
    consumptionMode: head.consumptionMode === 0 ? 'OnPremise' : 'Takeaway',
    ...(extra.receiptUrl !== undefined ? { receiptUrl: extra.receiptUrl } : {}),
    totalGross: priced.totalGrossMinor,
    currency: head.currency,
    vats: priced.vats.map((v) => ({
      rate: Number(v.rateText),
      gross: v.grossMinor,
      net: v.netMinor,
      taxAmount: v.taxMinor,
    })),
    ...(extra.balance !== undefined ? { balance: extra.balance } : {}),
    ...(extra.status !== undefined ? { status: extra.status } : {}),
  };
  return out;
}
