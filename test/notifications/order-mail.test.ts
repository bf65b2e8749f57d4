import { beforeAll, describe, expect, it } from 'vitest';
import type { OrderInput } from '../../src/orders/order.service.js';
import { placeOrder } from '../../src/orders/order.service.js';
import {
  type CheckoutClient,
  callerOf,
  orderBody,
  setupCheckout,
  topUp,
} from '../checkout/checkout-support.js';
import { type TestApp, databases } from '../support/harness.js';
import { signedIn } from './purchase-history.js';
import { type MailCatcher, appWithMail, eventually, giftCard, profileWithCard, uniqueId } from './support.js';

type Mail = MailCatcher['mails'][number];

// docs/decisions.md, "The purchase mail of an order paid from the balance": an order paid from a
// profile's balance sends the consumer the purchase mail a POS basket's grant sends, over the same
// outbox and handler; a refund that gives money back sends it again, showing the refund; an order
// named by a gift card is refused, so it sends nothing and shows nowhere.
describe.each(databases)('the purchase mail of a checkout order on %s', (kind) => {
  const running = appWithMail(kind);
  let t: TestApp;
  let smtp: MailCatcher;
  let shop: CheckoutClient;
  beforeAll(async () => {
    ({ t, smtp } = running);
    shop = await setupCheckout(t);
  });

  const mailsTo = (email: string) => smtp.mails.filter((m) => JSON.stringify(m.to).includes(email));
  const settle = () => new Promise((r) => setTimeout(r, 300));

  /** A consumer with an address, a customer card and 50.00 on the balance. */
  async function consumer(language = 'en') {
    const who = await profileWithCard(t, shop.term, { language, fullName: 'Ada Muster' });
    await topUp(shop, who.cardId, 5000);
    return who;
  }

  /** Two articles on premise: 3.50 + 2 × 2.20 = 7.90, paid from the balance. */
  const paidOrder = (reference: string, charge = true) =>
    orderBody(
      shop,
      reference,
      [
        ['1001', 1],
        ['1002', 2],
      ],
      { totalGross: 790, balance: { requestCharge: charge } },
    );

  const receiptPathOf = (answer: string) => {
    const url = (JSON.parse(answer) as { receiptUrl: string }).receiptUrl;
    expect(url).toMatch(/\/receipts\/[A-Za-z0-9_-]{22,}$/);
    return { url, path: new URL(url).pathname };
  };

  const notificationsFor = async (receiptPath: string) =>
    t.database.db
      .selectFrom('outbox_messages')
      .select('payload')
      .where('topic', '=', 'purchase.notification')
      .where((eb) => eb(eb.cast('payload', 'text'), 'like', `%${receiptPath.split('/').pop() ?? ''}%`))
      .execute();

  /** The rules every purchase mail keeps, in English. */
  function expectPurchaseMail(mail: Mail | undefined, basketId: string, receiptUrl: string): void {
    const merchant = shop.serviceUserName;
    expect(mail?.subject).toBe(`Your purchase at ${merchant}`);
    expect(mail?.from?.value).toEqual([{ name: merchant, address: 'no-reply@punchcard.invalid' }]);
    expect(mail?.html).toContain(`<title>Your purchase at ${merchant}</title>`);
    for (const part of [String(mail?.html), String(mail?.text)]) {
      expect(part.match(/Total/g)).toHaveLength(1);
      expect(part).toContain('Total: €7.90');
      expect(part).toContain(`Bill no.: ${basketId}`);
      expect(part).toContain('Paid from balance: €7.90');
      expect(part).toContain('2 × Article 1002: €4.40');
    }
    expect(mail?.text).toContain(`Store: ${merchant}, Web shop`);
    expect(mail?.text).toContain(receiptUrl);
    expect(mail?.html).toContain(`href="${receiptUrl}"`);
    expect(mail?.attachments).toHaveLength(0);
  }

  it('an order paid from the balance sends one purchase mail from the merchant: bill number, the total once, how it was paid, the receipt link; the same Idempotency-Key sent again sends no second one', async () => {
    const who = await consumer();
    const body = paidOrder(who.cardId);
    const key = uniqueId('key');
    const first = await shop.order(body, { key });
    expect(first.statusCode, first.body).toBe(200);
    const again = await shop.order(body, { key });
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    const { url, path } = receiptPathOf(first.body);
    const [mail] = await eventually(() => {
      const found = mailsTo(who.email);
      expect(found).toHaveLength(1);
      return found;
    });
    expectPurchaseMail(mail, String(body.basketId), url);
    await settle();
    expect(mailsTo(who.email)).toHaveLength(1);
    expect(await notificationsFor(path)).toHaveLength(1);
    // The receipt the mail links shows the same bill number and payment.
    const page = await t.app.inject({ method: 'GET', url: `${path}?lang=en` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(String(body.basketId));
    expect(page.body).toContain('Paid from balance');
  });

  it('a refund sends the mail again, showing what went back to the balance; the receipt says it was refunded; a refund sent again sends nothing', async () => {
    const who = await consumer();
    const body = paidOrder(who.cardId);
    const placed = await shop.order(body);
    expect(placed.statusCode, placed.body).toBe(200);
    const { url, path } = receiptPathOf(placed.body);
    await eventually(() => expect(mailsTo(who.email)).toHaveLength(1));
    const refund = await shop.call('POST', `/api/v1/orders/${String(body.basketId)}/refund`);
    expect(refund.statusCode, refund.body).toBe(200);
    const mails = await eventually(() => {
      const found = mailsTo(who.email);
      expect(found).toHaveLength(2);
      return found;
    });
    const mail = mails[1];
    expectPurchaseMail(mail, String(body.basketId), url);
    for (const part of [String(mail?.html), String(mail?.text)]) {
      expect(part).toMatch(/Refund −€7\.90, €7\.90 back to the balance \(\d{1,2} [A-Z][a-z]{2} \d{4}\)/);
    }
    const page = await t.app.inject({ method: 'GET', url: `${path}?lang=en` });
    expect(page.body).toContain('€7.90 went back to the balance.');
    const twice = await shop.call('POST', `/api/v1/orders/${String(body.basketId)}/refund`);
    expect(twice.statusCode).toBe(200);
    await settle();
    expect(mailsTo(who.email)).toHaveLength(2);
  });

  it('every way an order is written sends the one mail: a customer card, a one-time password, orders of one batch, the order in separate statements; an order the shop took payment for otherwise sends none', async () => {
    const [byCard, byOtp, slow, unpaid] = [
      await consumer(),
      await consumer(),
      await consumer(),
      await consumer(),
    ];
    const otp = await shop.otp(byOtp.profileId);
    const batch = await Promise.all([
      shop.order(paidOrder(byCard.cardId)),
      shop.order(paidOrder(otp)),
      shop.order(paidOrder(unpaid.cardId, false)),
    ]);
    for (const r of batch) expect(r.statusCode, r.body).toBe(200);
    const caller = await callerOf(t, shop);
    const slowBody = paidOrder(slow.cardId);
    const text = await placeOrder(t.app.services.checkout, caller, slowBody as unknown as OrderInput, null);
    const slowUrl = receiptPathOf(text).url;
    for (const who of [byCard, byOtp, slow])
      await eventually(() => expect(mailsTo(who.email)).toHaveLength(1));
    expectPurchaseMail(mailsTo(slow.email)[0], String(slowBody.basketId), slowUrl);
    await settle();
    for (const who of [byCard, byOtp, slow]) expect(mailsTo(who.email)).toHaveLength(1);
    expect(mailsTo(unpaid.email)).toHaveLength(0);
    expect(await notificationsFor(receiptPathOf(batch[2]?.body ?? '{}').path)).toHaveLength(0);
  });

  it('"Who is notified": a profile with neither a mail address nor a browser subscribed to push queues nothing; given an address or a subscription, the next order queues its mail', async () => {
    const bare = async () => {
      const created = await t.admin(
        'POST',
        `/merchants/${encodeURIComponent(shop.serviceUserName)}/profiles`,
        { fullName: 'No Address' },
      );
      expect(created.statusCode, created.body).toBe(201);
      const profileId = (created.json() as { id: number }).id;
      const cardId = uniqueId('card');
      const link = await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: cardId });
      expect(link.statusCode, link.body).toBe(200);
      await topUp(shop, cardId, 5000);
      return { profileId, cardId };
    };
    const queuedFor = async (cardId: string) => {
      const placed = await shop.order(paidOrder(cardId));
      expect(placed.statusCode, placed.body).toBe(200);
      return (await notificationsFor(receiptPathOf(placed.body).path)).length;
    };
    const mailLater = await bare();
    const pushOnly = await bare();
    expect(await queuedFor(mailLater.cardId)).toBe(0);
    expect(await queuedFor(pushOnly.cardId)).toBe(0);

    const email = `${uniqueId('late')}@example.org`;
    await t.database.db
      .updateTable('profiles')
      .set({ email })
      .where('id', '=', mailLater.profileId)
      .execute();
    expect(await queuedFor(mailLater.cardId)).toBe(1);
    await eventually(() => expect(mailsTo(email)).toHaveLength(1));

    await t.database.db
      .insertInto('push_subscriptions')
      .values({
        merchant_id: (
          await t.database.db
            .selectFrom('profiles')
            .select('merchant_id')
            .where('id', '=', pushOnly.profileId)
            .executeTakeFirstOrThrow()
        ).merchant_id,
        profile_id: pushOnly.profileId,
        endpoint: 'https://push.invalid/subscription',
        p256dh: 'key',
        auth: 'auth',
        created_at: new Date(),
      })
      .execute();
    expect(await queuedFor(pushOnly.cardId)).toBe(1);
  });

  it('"a gift card\'s holder has no public consumer-portal access to its activity": an order naming a gift card linked to the profile is refused, sends no mail and is not on /me', async () => {
    const who = await consumer();
    const gift = await giftCard(shop.term);
    const linked = await t.admin('POST', `/profiles/${who.profileId}/tokens`, {
      tokenId: gift,
      tokenType: 'gift',
    });
    expect(linked.statusCode, linked.body).toBe(200);
    const body = paidOrder(gift);
    const refused = await shop.order(body);
    expect(refused.statusCode).toBe(422);
    expect((refused.json() as { error: { code: string } }).error.code).toBe('profile_not_found');
    // The order in separate statements refuses it the same way.
    const caller = await callerOf(t, shop);
    await expect(
      placeOrder(t.app.services.checkout, caller, paidOrder(gift) as unknown as OrderInput, null),
    ).rejects.toMatchObject({ entry: { status: 422 } });
    const orders = await t.database.db
      .selectFrom('checkout_orders')
      .select('id')
      .where('profile_id', '=', who.profileId)
      .execute();
    expect(orders).toEqual([]);
    // A control order with the customer card: its mail arrives and it shows on /me, the other not.
    const control = await shop.order(paidOrder(who.cardId));
    expect(control.statusCode, control.body).toBe(200);
    await eventually(() => expect(mailsTo(who.email)).toHaveLength(1));
    await settle();
    expect(mailsTo(who.email)).toHaveLength(1);
    const me = await t.app.inject({
      method: 'GET',
      url: '/me',
      headers: { cookie: await signedIn(t, who.email) },
    });
    expect(me.statusCode).toBe(200);
    expect(me.body).toContain(receiptPathOf(control.body).path);
    expect(me.body).not.toContain(gift);
    const links = new Set(me.body.match(/\/receipts\/[A-Za-z0-9_-]+/g));
    expect([...links]).toEqual([receiptPathOf(control.body).path]);
  });
});
