import { type Static, Type } from 'typebox';
import type { Session } from '../portal-users/portal-auth.service.js';
import { basketDetail, searchBaskets } from '../reports/basket-search.store.js';
import { AppError } from '../shared/errors.js';
import { type PageKey, pageOf, pageRequest } from '../shared/paging.js';
import { pageQueryFields } from '../wire/paging.js';
import { receiptOf } from './receipt-link.js';
import type { ViewDeps } from './views.js';
import { ReceiptMailFilterSchema } from './mail-schemas.js';
import type { ReceiptNotificationState } from '../notifications/purchase-notification.store.js';

/** The basket search's filters (`GET /portal/api/v1/baskets`). */
export const BasketQuery = Type.Object({
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Basket time at or after.' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Basket time before.' })),
  outletId: Type.Optional(Type.Integer({ minimum: 1 })),
  trackingUnitId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  card: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'Customer card or gift card id.' }),
  ),
  number: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'A bill number or a basket id, exactly as the till sent it.',
    }),
  ),
  state: Type.Optional(
    Type.Union([Type.Literal('open'), Type.Literal('granted'), Type.Literal('returned')], {
      description: 'open: uploaded, not granted; granted: nothing returned; returned: a return booked.',
    }),
  ),
  receiptMail: Type.Optional(ReceiptMailFilterSchema),
  ...pageQueryFields,
});
export type BasketQuery = Static<typeof BasketQuery>;

/** The cursor's list name: a cursor of another list is refused. */
const LIST = 'portalBaskets';

/** The basket's key in a cursor: its time (ms), terminal and basket id. */
function cursorKey(key: PageKey | null): [number, string, string] | null {
  // The cursor's decoder checked the key's kinds (the list's KeyShape).
  return key as [number, string, string] | null;
}

/** The same filters as the search's, without its page (the CSV's). */
export const BasketFilterQuery = Type.Omit(BasketQuery, ['limit', 'cursor']);
export type BasketFilterQuery = Static<typeof BasketFilterQuery>;

/** The search's filters as the store takes them. */
export function basketFilterOf(s: Session, q: BasketFilterQuery) {
  const time = (t: string | undefined) => (t === undefined ? null : Date.parse(t));
  return {
    merchantId: s.merchantId,
    fromMs: time(q.from),
    toMs: time(q.to),
    outletId: q.outletId ?? null,
    trackingUnitId: q.trackingUnitId ?? null,
    card: q.card ?? null,
    number: q.number?.trim() || null,
    state: q.state ?? null,
    receiptMail: q.receiptMail ?? null,
  };
}

/** A page of the baskets found, newest first. */
export async function basketSearchView(deps: ViewDeps, s: Session, q: BasketQuery) {
  const page = pageRequest(LIST, q, ['number', 'string', 'string']);
  const after = cursorKey(page.after);
  const rows = await searchBaskets(deps.db, { ...basketFilterOf(s, q), limit: page.limit, after });
  return pageOf(
    LIST,
    rows,
    page.limit,
    (b) => [Date.parse(b.timestamp), b.trackingUnitId, b.basketId],
    (b) => b,
  );
}

/** One basket with its rewards, points, returns and receipt. */
export async function basketView(deps: ViewDeps, s: Session, trackingUnitId: string, basketId: string) {
  const b = await basketDetail(deps.db, s.merchantId, trackingUnitId, basketId);
  if (!b) throw new AppError('notFound', 'No basket under this id.');
  const receipt = await receiptOf(deps.db, s.merchantId, trackingUnitId, basketId);
  return {
    ...b,
    receiptUrl: receipt?.url ?? null,
    receiptMail: receiptMailOut(receipt?.receiptMail ?? null),
  };
}

/** What became of a receipt's mail as the portal answers it (a basket's or an order's): times as text. */
export function receiptMailOut(mail: ReceiptNotificationState | null) {
  return (
    mail && {
      ...mail,
      deliveredAt: mail.deliveredAt?.toISOString() ?? null,
      nextAttemptAt: mail.nextAttemptAt?.toISOString() ?? null,
    }
  );
}
