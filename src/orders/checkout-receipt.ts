import type { Kysely } from 'kysely';
import type { ReceiptSource, ReceiptView } from '../receipts/receipt-view.js';
import type { DB } from '../store/schema.js';
import { findOrder, orderReceiptHead } from './order.store.js';

/**
 * The digital receipt of a checkout order (kind `checkout_order`, source key: the order's id):
 * its positions and VAT table as priced, the part paid from the balance and the order's status.
 */
export const checkoutOrderReceipts: ReceiptSource = {
  kind: 'checkout_order',
  async load(db: Kysely<DB>, merchantId: number, sourceRef: string): Promise<ReceiptView | undefined> {
    const order = await findOrder(db, merchantId, { id: sourceRef });
    if (!order) return undefined;
    const about = await orderReceiptHead(db, merchantId, order.profileId);
    const { priced } = order.priced;
    return {
      merchantName: about?.display_name ?? '',
      currency: order.currency,
      language: about?.language ?? 'de',
      outlet: null,
      time: new Date(order.priced.head.orderTimestamp),
      timeOffsetMinutes: 0,
      positions: priced.positions.map((p) => ({
        description: priced.descriptions[p.productPlu] ?? p.productPlu,
        quantityText: String(p.quantity),
        grossMinor: p.lineGrossMinor,
        discountMinor: p.discountMinor,
        props: [],
      })),
      rewards: [],
      vats: priced.vats.map((v) => ({
        ratePercentText: v.rateText,
        netMinor: v.netMinor,
        taxMinor: v.taxMinor,
        grossMinor: v.grossMinor,
      })),
      totalGrossMinor: order.totalGrossMinor,
      paidFromBalanceMinor: order.chargedMinor > 0 ? order.chargedMinor : null,
      points: [],
      returns: [],
      hasBillPdf: false,
      status: order.status,
    };
  },
};
