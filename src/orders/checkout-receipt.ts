import type { Kysely } from 'kysely';
import type { ReceiptPayment, ReceiptSource, ReceiptView } from '../receipts/receipt-view.js';
import { zoneOffsetMinutes } from '../shared/time.js';
import type { DB } from '../store/schema.js';
import { campaignNames } from '../campaigns/campaign-names.store.js';
import type { OrderCampaign } from './order-model.js';
import { refundsOf } from './order-read.store.js';
import { findOrder, orderReceiptHead } from './order.store.js';

/** The balance's part, then the rest, which the shop took otherwise. */
function paymentsOf(totalMinor: number, chargedMinor: number): ReceiptPayment[] {
  const out: ReceiptPayment[] = [];
  if (chargedMinor > 0) out.push({ method: 'balance', amountMinor: chargedMinor });
  if (totalMinor - chargedMinor > 0) out.push({ method: 'other', amountMinor: totalMinor - chargedMinor });
  return out;
}

/**
 * The campaigns that gave the order its discounts, named as when it was priced; an order priced
 * before its pricing kept the names reads them as they are now ('' for a campaign no longer there:
 * the receipt calls it a discount).
 */
async function campaignsNamed(
  db: Kysely<DB>,
  merchantId: number,
  campaigns: readonly OrderCampaign[],
): Promise<ReceiptView['includedDiscounts']> {
  const unnamed = campaigns.filter((c) => c.name === undefined).map((c) => c.campaignId);
  const now = await campaignNames(db, merchantId, unnamed);
  return campaigns.map((c) => ({
    description: c.name ?? now.get(c.campaignId) ?? '',
    valueMinor: c.discountMinor,
  }));
}

/**
 * The digital receipt of a checkout order (kind `checkout_order`, source key: the order's id):
 * its positions and VAT table as priced, the shop (the checkout client that placed it), what was
 * paid from the balance and what otherwise, the order's status and its refunds, each with the
 * positions it took back (docs/decisions.md "Purchases, receipts and the purchase mail", "Reading
 * back, lists and partial refunds").
 */
export const checkoutOrderReceipts: ReceiptSource = {
  kind: 'checkout_order',
  async load(db: Kysely<DB>, merchantId: number, sourceRef: string): Promise<ReceiptView | undefined> {
    const order = await findOrder(db, merchantId, { id: sourceRef });
    if (!order) return undefined;
    const about = await orderReceiptHead(db, merchantId, order.profileId, order.clientId);
    const { priced } = order.priced;
    const time = new Date(order.priced.head.orderTimestamp);
    const refunds = (await refundsOf(db, [order.id])).get(order.id) ?? [];
    const nameOf = (positionId: number) => {
      const plu = priced.positions.find((p) => p.positionId === positionId)?.productPlu ?? '';
      return priced.descriptions[plu] ?? plu;
    };
    return {
      merchantName: about?.display_name ?? '',
      issuer: {
        legalName: about?.legal_name ?? null,
        address: about?.legal_address ?? null,
        taxNumber: about?.tax_number ?? null,
      },
      billNumber: order.basketId,
      currency: order.currency,
      language: about?.language ?? 'de',
      outlet: about?.shop ? { name: about.shop, address: null } : null,
      time,
      timeOffsetMinutes: about ? zoneOffsetMinutes(about.time_zone, time.getTime()) : 0,
      timeZone: about?.time_zone ?? 'UTC',
      positions: priced.positions.map((p) => ({
        description: priced.descriptions[p.productPlu] ?? p.productPlu,
        quantity: String(p.quantity),
        weighed: false,
        grossMinor: p.lineGrossMinor,
        discountMinor: p.discountMinor,
        props: [],
      })),
      rewards: [],
      includedDiscounts: await campaignsNamed(db, merchantId, priced.campaigns ?? []),
      vats: priced.vats.map((v) => ({
        rateText: v.rateText,
        netMinor: v.netMinor,
        taxMinor: v.taxMinor,
        grossMinor: v.grossMinor,
      })),
      totalGrossMinor: order.totalGrossMinor,
      payments: paymentsOf(order.totalGrossMinor, order.chargedMinor),
      points: [],
      returns: refunds.map((r) => ({
        kind: 'refund' as const,
        time: r.createdAt,
        amountMinor: r.amountMinor,
        items: r.positions.map((p) => ({
          quantity: String(p.quantity),
          weighed: false,
          name: nameOf(p.positionId),
        })),
        toBalanceMinor: r.amountMinor,
        points: [],
      })),
      hasBillPdf: false,
      status: order.status,
    };
  },
};
