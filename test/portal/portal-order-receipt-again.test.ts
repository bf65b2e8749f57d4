import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type TestBrowser, fitsWidth, openChromium, screenshotDir, serve } from '../support/browser.js';
import { type TestApp, databases } from '../support/harness.js';
import { type CheckoutClient, orderBody, setupCheckout, topUp } from '../checkout/checkout-support.js';
import {
  appWithMail,
  eventually,
  profileWithCard,
  purchaseNotificationsOf,
  receiptBasket,
  uniqueId,
  uploadAndGrant,
} from '../notifications/support.js';
import { type PortalSession, ownerAndStaff, portalCall, signIn } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';
const SHOTS = screenshotDir('.test-cache', '.test-cache');

interface Order {
  orderId: string;
  receiptUrl: string | null;
  receiptMail: { kind: string; attempts: number } | null;
}

/**
 * docs/decisions.md, "Sending the receipt again": the receipt mail of a checkout order paid from the
 * balance ("The purchase mail of an order paid from the balance") is sent again from the order's page
 * as a basket's is, refused where no mail is ours to send or one is still on its way, and counted and
 * sent again with the customer's other undelivered receipts.
 */
describe.each(databases)("an order's receipt sent again (%s)", (kind) => {
  const app = appWithMail(kind, { OUTBOX_RETRY_SCHEDULE_MS: '3600000' });
  let t: TestApp;
  let shop: CheckoutClient;
  let owner: PortalSession;
  let staff: PortalSession;
  let browser: TestBrowser;
  let baseUrl = '';
  const ownerEmail = `owner-${kind}@order-again.test`;

  beforeAll(async () => {
    t = app.t;
    shop = await setupCheckout(t);
    ({ owner, staff } = await ownerAndStaff(
      t,
      shop.serviceUserName,
      { owner: ownerEmail, staff: `staff-${kind}@order-again.test` },
      PASSWORD,
    ));
    baseUrl = await serve(t);
    browser = await openChromium();
    return async () => browser?.close();
  }, 120_000);

  /** An order of the customer's card: paid from the balance (topped up first) unless `charged` is false. */
  const placeOrder = async (cardId: string, charged = true) => {
    if (charged) await topUp(shop, cardId, 5_000);
    const body = orderBody(shop, cardId, [['1002', 1]], {
      totalGross: 220,
      ...(charged ? { balance: { requestCharge: true } } : {}),
    });
    const placed = await shop.order(body);
    expect(placed.statusCode, placed.body).toBe(200);
    const found = await portalCall(t, owner, 'GET', `/orders?number=${body.basketId as string}`);
    const orderId = (found.json() as { data: { orderId: string }[] }).data[0]?.orderId;
    if (!orderId) throw new Error('order not found');
    return orderId;
  };
  const readOrder = async (orderId: string) => {
    const res = await portalCall(t, owner, 'GET', `/orders/${orderId}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Order;
  };
  const mailOf = (orderId: string, kindIs: string) =>
    eventually(async () => {
      const o = await readOrder(orderId);
      expect(o.receiptMail?.kind).toBe(kindIs);
      return o;
    });
  const sendAgain = (orderId: string, s: PortalSession = owner) =>
    portalCall(t, s, 'POST', `/orders/${encodeURIComponent(orderId)}/receiptMail`);
  const code = (res: Awaited<ReturnType<typeof sendAgain>>) => [
    res.statusCode,
    (res.json() as { error?: { code: string } }).error?.code,
  ];
  /** The purchase notifications written for the order's receipt. */
  const messages = async (orderId: string) =>
    purchaseNotificationsOf(t, (await readOrder(orderId)).receiptUrl);
  const mailsTo = (address: string) => app.smtp.mails.filter((m) => JSON.stringify(m.to).includes(address));

  it('an order receipt refused at a mistyped address reaches the customer once corrected and sent again', async () => {
    const typo = `${uniqueId('ida')}@exmaple.org`;
    const right = typo.replace('@exmaple.org', '@example.org');
    const who = await profileWithCard(t, shop.term, { email: typo });
    app.smtp.unknown.add(typo);
    const orderId = await placeOrder(who.cardId);
    await mailOf(orderId, 'refused');

    const changed = await portalCall(t, owner, 'PUT', `/profiles/${who.profileId}/email`, { email: right });
    expect(changed.statusCode, changed.body).toBe(200);
    const again = await sendAgain(orderId, staff);
    expect(again.statusCode, again.body).toBe(200);
    expect((again.json() as Order).receiptMail?.kind).toBe('pending');
    const sent = await mailOf(orderId, 'sent');
    await eventually(() => expect(mailsTo(right)).toHaveLength(1));
    expect(mailsTo(right)[0]?.text ?? '').toContain(sent.receiptUrl ?? 'no receipt');
    expect(await messages(orderId)).toBe(2);
  });

  it("the customer's undelivered receipts count and send again their orders' beside their baskets'", async () => {
    const typo = `${uniqueId('jan')}@exmaple.org`;
    const right = typo.replace('@exmaple.org', '@example.org');
    const who = await profileWithCard(t, shop.term, { email: typo });
    const neighbour = await profileWithCard(t, shop.term);
    app.smtp.unknown.add(typo);
    app.smtp.unknown.add(neighbour.email);
    const orders = [await placeOrder(who.cardId), await placeOrder(who.cardId)];
    const basketId = uniqueId('jan-basket');
    await uploadAndGrant(shop.term, basketId, { consumerIdentToken: who.cardId }, receiptBasket(false));
    const theirs = await placeOrder(neighbour.cardId);
    for (const id of [...orders, theirs]) await mailOf(id, 'refused');
    await eventually(async () => {
      const p = await portalCall(t, owner, 'GET', `/profiles/${who.profileId}`);
      expect((p.json() as { undeliveredReceipts: number }).undeliveredReceipts).toBe(3);
    });

    expect(
      (await portalCall(t, owner, 'PUT', `/profiles/${who.profileId}/email`, { email: right })).statusCode,
    ).toBe(200);
    const again = await portalCall(t, staff, 'POST', `/profiles/${who.profileId}/receiptMails`);
    expect(again.statusCode, again.body).toBe(200);
    expect((again.json() as { undeliveredReceipts: number }).undeliveredReceipts).toBe(0);
    for (const id of orders) await mailOf(id, 'sent');
    await eventually(() => expect(mailsTo(right)).toHaveLength(3));
    expect((await readOrder(theirs)).receiptMail?.kind).toBe('refused');
    expect(await messages(theirs)).toBe(1);
  });

  it('refused while the mail is on its way, for an order paid otherwise, with nobody to notify, and for an order not the merchant’s', async () => {
    const busy = await profileWithCard(t, shop.term);
    app.smtp.busy.add(busy.email);
    const waiting = await placeOrder(busy.cardId);
    await eventually(async () => expect((await readOrder(waiting)).receiptMail?.attempts).toBe(1));
    expect(code(await sendAgain(waiting))).toEqual([409, 'receipt_mail_pending']);
    expect(await messages(waiting)).toBe(1);

    const paidOtherwise = await placeOrder(busy.cardId, false);
    expect((await readOrder(paidOtherwise)).receiptMail).toBeNull();
    expect(code(await sendAgain(paidOtherwise))).toEqual([409, 'receipt_mail_paid_otherwise']);
    expect(await messages(paidOtherwise)).toBe(0);

    const gone = await profileWithCard(t, shop.term);
    const delivered = await placeOrder(gone.cardId);
    await mailOf(delivered, 'sent');
    const removed = await portalCall(t, owner, 'PUT', `/profiles/${gone.profileId}/email`, { email: null });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(code(await sendAgain(delivered))).toEqual([409, 'receipt_mail_nobody']);
    expect(await messages(delivered)).toBe(1);

    expect((await sendAgain('no-such-order')).statusCode).toBe(404);
    const them = await setupCheckout(t);
    const stranger = await profileWithCard(t, them.term);
    const top = await them.call('POST', `/api/v1/profiles/${stranger.cardId}/topUps`, {
      amount: 5_000,
      currency: 'EUR',
    });
    expect(top.statusCode, top.body).toBe(201);
    const foreign = orderBody(them, stranger.cardId, [['1002', 1]], {
      totalGross: 220,
      balance: { requestCharge: true },
    });
    expect((await them.order(foreign)).statusCode).toBe(200);
    const foreignId = await t.database.db
      .selectFrom('checkout_orders')
      .select('id')
      .where('basket_id', '=', foreign.basketId as string)
      .executeTakeFirstOrThrow();
    expect(code(await sendAgain(foreignId.id))).toEqual([404, 'not_found']);
    const withoutCsrf = await portalCall(
      t,
      { cookie: owner.cookie },
      'POST',
      `/orders/${delivered}/receiptMail`,
    );
    expect(withoutCsrf.statusCode).toBe(403);
  });

  it('two requests to send it again at once queue one message', async () => {
    const who = await profileWithCard(t, shop.term);
    const orderId = await placeOrder(who.cardId);
    await mailOf(orderId, 'sent');
    const answers = await Promise.all([sendAgain(orderId), sendAgain(orderId, staff)]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 409]);
    expect(await messages(orderId)).toBe(2);
    await mailOf(orderId, 'sent');
  });

  it("on a phone, in German, staff send a refused order's receipt again from the order's page", async () => {
    const typo = `${uniqueId('lena')}@gmial.com`;
    const right = typo.replace('@gmial.com', '@gmail.com');
    const who = await profileWithCard(t, shop.term, { email: typo, fullName: 'Lena Vogt' });
    app.smtp.unknown.add(typo);
    const orderId = await placeOrder(who.cardId);
    await mailOf(orderId, 'refused');
    expect(
      (await portalCall(t, owner, 'PUT', `/profiles/${who.profileId}/email`, { email: right })).statusCode,
    ).toBe(200);

    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    await signIn(page, baseUrl, { email: `staff-${kind}@order-again.test`, password: PASSWORD });
    await page.goto(`${baseUrl}/portal/orders/${orderId}`);
    expect(await page.locator('#order-receipt-mail').textContent()).toContain(
      'Vom Mailserver des Kunden abgelehnt',
    );
    await page.getByRole('button', { name: 'Beleg erneut senden' }).click();
    await page.waitForLoadState('load');
    await eventually(async () => {
      await page.reload();
      expect(await page.locator('#order-receipt-mail').textContent()).toContain(
        'an den Mailserver übergeben',
      );
    });
    await fitsWidth(page);
    await page
      .locator('.card')
      .first()
      .screenshot({ path: join(SHOTS, `order-receipt-again-${kind}.png`) });
    expect(mailsTo(right)).toHaveLength(1);

    // An order paid otherwise offers no button: no mail of it is ours to send.
    const otherwise = await placeOrder(who.cardId, false);
    await page.goto(`${baseUrl}/portal/orders/${otherwise}`);
    expect(await page.locator('#resend-receipt').count()).toBe(0);
    await page.close();
  });

  it("the order search's receiptMail filter finds exactly the orders whose page says that of their mail, and the dashboard counts the refused and given up", async () => {
    // The mail still being tried (the test above) is given up after the one retry, an hour later.
    t.clock.advance(3_600_000);
    const later = await profileWithCard(t, shop.term);
    app.smtp.busy.add(later.email);
    const stillTried = await placeOrder(later.cardId);
    await eventually(async () => expect((await readOrder(stillTried)).receiptMail?.attempts).toBe(1));
    const list = async (filter: string) => {
      const res = await portalCall(t, owner, 'GET', `/orders?limit=100${filter}`);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as { data: { orderId: string }[]; hasMore: boolean };
      expect(body.hasMore).toBe(false);
      return body.data.map((o) => o.orderId).sort();
    };
    const all = await list('');
    const kindOf = new Map<string, string>();
    await eventually(async () => {
      for (const orderId of all) kindOf.set(orderId, (await readOrder(orderId)).receiptMail?.kind ?? 'none');
      expect([...kindOf.values()]).toContain('given_up');
    });
    for (const k of ['sent', 'pending', 'refused', 'given_up']) {
      const expected = all.filter((id) => kindOf.get(id) === k);
      expect(expected.length, k).toBeGreaterThan(0);
      expect(await list(`&receiptMail=${k}`), k).toEqual(expected);
      const sums = await portalCall(t, owner, 'GET', `/orders/totals?receiptMail=${k}`);
      expect((sums.json() as { orders: number }).orders, k).toBe(expected.length);
    }
    expect([...kindOf.values()]).toContain('none');
    expect((await portalCall(t, owner, 'GET', '/orders?receiptMail=not_sent')).statusCode).toBe(400);

    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const period = `from=${day(t.clock.nowMs() - 3 * 86_400_000)}&to=${day(t.clock.nowMs() + 86_400_000)}`;
    const board = await portalCall(t, owner, 'GET', `/dashboard?${period}`);
    expect(board.statusCode, board.body).toBe(200);
    const counted = (kind: string) => all.filter((id) => kindOf.get(id) === kind).length;
    expect(
      (board.json() as { orders: { undeliveredReceiptMails: unknown } }).orders.undeliveredReceiptMails,
    ).toEqual({
      refused: counted('refused'),
      givenUp: counted('given_up'),
    });
    // A day before the orders: none of them.
    const before = `from=${day(t.clock.nowMs() - 9 * 86_400_000)}&to=${day(t.clock.nowMs() - 8 * 86_400_000)}`;
    const empty = await portalCall(t, owner, 'GET', `/dashboard?${before}`);
    expect(
      (empty.json() as { orders: { undeliveredReceiptMails: unknown } }).orders.undeliveredReceiptMails,
    ).toEqual({
      refused: 0,
      givenUp: 0,
    });

    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    await signIn(page, baseUrl, { email: ownerEmail, password: PASSWORD });
    await page.goto(`${baseUrl}/portal/dashboard?${period}`);
    const notice = page.locator('#order-receipt-mails-undelivered');
    expect(await notice.textContent()).toContain(
      `Belege per E-Mail zu Bestellungen dieses Zeitraums, die nicht ankamen: ${counted('refused') + counted('given_up')}`,
    );
    await notice.screenshot({ path: join(SHOTS, `dashboard-order-mails-${kind}.png`) });
    await Promise.all([page.waitForURL(/receiptMail=refused/), notice.getByRole('link').first().click()]);
    expect(await page.locator('select[name=receiptMail]').inputValue()).toBe('refused');
    const shown = await page.locator('#order-list tbody tr .order-key small').allTextContents();
    expect(shown.sort()).toEqual(all.filter((id) => kindOf.get(id) === 'refused'));
    await fitsWidth(page);
    await page.close();
  });
});
