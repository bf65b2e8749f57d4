import { beforeAll, describe, expect, it } from 'vitest';
import { type TestBrowser, openChromium, serve } from '../support/browser.js';
import { type TestApp, databases } from '../support/harness.js';
import { type CheckoutClient, orderBody, setupCheckout, topUp } from '../checkout/checkout-support.js';
import { type MailCatcher, appWithMail, eventually, profileWithCard } from '../notifications/support.js';
import { type PortalSession, addPortalUser, portalCall, portalSession, signIn } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';

type ReceiptMail = { kind: string; status: string; attempts: number; lastError: string | null } | null;

/**
 * docs/decisions.md, "One checkout order in the portal": the order's page says what became of the
 * receipt mail the order sent the customer, by the same rule as a basket's ("What became of the
 * receipt mail"): delivered, or refused by the customer's mail server with its answer.
 */
describe.each(databases)("an order's receipt mail on its page (%s)", (kind) => {
  const running = appWithMail(kind, { OUTBOX_RETRY_SCHEDULE_MS: '3600000' });
  let t: TestApp;
  let smtp: MailCatcher;
  let shop: CheckoutClient;
  let owner: PortalSession;
  let browser: TestBrowser;
  let baseUrl = '';
  const ownerEmail = `owner-${kind}@order-mail.test`;

  beforeAll(async () => {
    ({ t, smtp } = running);
    shop = await setupCheckout(t);
    await addPortalUser(t, shop.serviceUserName, { email: ownerEmail, password: PASSWORD, lang: 'de' });
    baseUrl = await serve(t);
    browser = await openChromium();
    return async () => browser?.close();
  }, 120_000);

  /** A paid order of a customer with this address; its order id once its mail is settled. */
  const orderOf = async (email: string) => {
    const who = await profileWithCard(t, shop.term, { email, fullName: 'Ada Muster' });
    await topUp(shop, who.cardId, 5_000);
    const body = orderBody(shop, who.cardId, [['1002', 1]], {
      totalGross: 220,
      balance: { requestCharge: true },
    });
    expect((await shop.order(body)).statusCode).toBe(200);
    owner = await portalSession(t, ownerEmail, PASSWORD);
    const found = await portalCall(t, owner, 'GET', `/orders?number=${body.basketId as string}`);
    return (found.json() as { data: { orderId: string }[] }).data[0]?.orderId ?? '';
  };
  const mailOf = async (orderId: string) =>
    ((await portalCall(t, owner, 'GET', `/orders/${orderId}`)).json() as { receiptMail: ReceiptMail })
      .receiptMail;

  it('delivered, or refused by the mail server with its answer, as the order page says', async () => {
    const sent = await orderOf('ada@example.org');
    await eventually(async () => expect((await mailOf(sent))?.kind).toBe('sent'));
    expect(smtp.mails.some((m) => JSON.stringify(m.to).includes('ada@example.org'))).toBe(true);

    smtp.unknown.add('nobody@example.org');
    const refused = await orderOf('nobody@example.org');
    await eventually(async () => expect((await mailOf(refused))?.kind).toBe('refused'));
    expect(await mailOf(refused)).toMatchObject({ status: 'dead', attempts: 1 });

    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    await signIn(page, baseUrl, { email: ownerEmail, password: PASSWORD });
    await page.goto(`${baseUrl}/portal/orders/${sent}`);
    expect(await page.locator('#order-receipt-mail').textContent()).toContain('an den Mailserver übergeben');
    await page.goto(`${baseUrl}/portal/orders/${refused}`);
    expect(await page.locator('#order-receipt-mail').textContent()).toContain(
      'Vom Mailserver des Kunden abgelehnt',
    );
    await page.close();
  });
});
