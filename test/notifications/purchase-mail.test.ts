import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';
import {
  type MailCatcher,
  PDF,
  eventually,
  giftCard,
  profileWithCard,
  receiptBasket,
  startMailCatcher,
  uniqueId,
  uploadAndGrant,
} from './support.js';

describe.each(databases)('purchase notifications by e-mail on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let smtp: MailCatcher;
  let ticking: NodeJS.Timeout;

  beforeAll(async () => {
    smtp = await startMailCatcher();
    t = await startApp(
      kind,
      { smtpUrl: smtp.url },
      { OUTBOX_RETRY_SCHEDULE_MS: '50,50,50', OUTBOX_POLL_MS: '20' },
    );
    // The service's clock is the test's: it moves on so that retries fall due.
    ticking = setInterval(() => t.clock.advance(100), 20);
    term = await setupTerminal(t);
  });
  afterAll(async () => {
    clearInterval(ticking);
    await t?.close();
    await smtp?.close();
  });

  const receiptIdOf = async (basketId: string) => {
    const row = await t.database.db
      .selectFrom('baskets')
      .select('grant_result')
      .where('tracking_unit_id', '=', term.trackingUnitId)
      .where('basket_id', '=', basketId)
      .executeTakeFirstOrThrow();
    return row.grant_result?.receiptId ?? null;
  };
  const mailsTo = (email: string) => smtp.mails.filter((m) => m.to && JSON.stringify(m.to).includes(email));

  it('"the service notifies the consumer of the purchase, by e-mail": a grant with a customer card sends exactly one mail with the receipt link and the BillPdf attached', async () => {
    const { cardId, email } = await profileWithCard(t, term);
    const basketId = uniqueId('mail');
    await uploadAndGrant(term, basketId, { consumerIdentToken: cardId });
    const receiptId = await receiptIdOf(basketId);
    expect(receiptId).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    const [mail] = await eventually(() => {
      const found = mailsTo(email);
      expect(found).toHaveLength(1);
      return found;
    });
    const url = `${t.config.publicBaseUrl}/receipts/${receiptId}`;
    expect(mail?.subject).toBe(`Ihr Einkauf bei ${term.serviceUserName}`);
    // The merchant's name as the sender's display name, the address the service's own.
    expect(mail?.from?.value).toEqual([
      { name: term.serviceUserName, address: 'no-reply@punchcard.invalid' },
    ]);
    // An HTML part with a title, and a plain-text part; the total once in each.
    expect(mail?.html).toContain(`<title>Ihr Einkauf bei ${term.serviceUserName}</title>`);
    for (const part of [String(mail?.html), String(mail?.text)]) {
      expect(part.match(/Summe/g)).toHaveLength(1);
      expect(part).toContain('Summe: 9,20\u00a0€');
    }
    // The bill number and how it was paid, as the receipt shows them (the till took it otherwise).
    for (const part of [String(mail?.html), String(mail?.text)]) {
      expect(part).toContain('Beleg-Nr.: R-1001');
      expect(part).toContain('Anders bezahlt: 9,20\u00a0€');
    }
    expect(mail?.text).toContain('Filiale: ');
    expect(mail?.text).toContain('Zeit: 02.03.2026, 16:59');
    expect(mail?.text).toContain('1 × Croissant: 2,20\u00a0€');
    expect(mail?.text).toContain(url);
    expect(mail?.text).toContain('2 × Cappuccino');
    expect(mail?.html).toContain(`href="${url}"`);
    expect(mail?.attachments).toHaveLength(1);
    expect(mail?.attachments[0]?.contentType).toBe('application/pdf');
    expect(mail?.attachments[0]?.content.equals(PDF)).toBe(true);
    // Exactly one: later dispatcher rounds send nothing more.
    await new Promise((r) => setTimeout(r, 300));
    expect(mailsTo(email)).toHaveLength(1);

    // The link opens the receipt: positions with ProductProps, the VAT table per rate, the PDF.
    const page = await t.app.inject({ method: 'GET', url: `/receipts/${receiptId}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('Cappuccino');
    expect(page.body).toContain('Milk: Oat · Size: Large');
    // 7.00 at 19 %: tax 1.12, net 5.88; 2.20 at 7 %: tax 0.14, net 2.06.
    const flat = page.body.replace(/\s+/g, ' ').replace(/> </g, '><');
    expect(flat).toMatch(
      /19 %<\/td><td class="num">5,88\s€<\/td><td class="num">1,12\s€<\/td><td class="num">7,00\s€/,
    );
    expect(flat).toMatch(
      /7 %<\/td><td class="num">2,06\s€<\/td><td class="num">0,14\s€<\/td><td class="num">2,20\s€/,
    );
    expect(page.body).toContain(`/receipts/${receiptId}/bill.pdf`);
    const pdf = await t.app.inject({ method: 'GET', url: `/receipts/${receiptId}/bill.pdf` });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.rawPayload.equals(PDF)).toBe(true);
  });

  it('"/receipts/{id}: an unknown id is 404"', async () => {
    for (const id of ['AAAAAAAAAAAAAAAAAAAAAA', 'x', '..%2F..%2Fetc']) {
      const res = await t.app.inject({ method: 'GET', url: `/receipts/${id}` });
      expect(res.statusCode, id).toBe(404);
      expect(res.headers['content-type']).toContain('text/html');
      const pdf = await t.app.inject({ method: 'GET', url: `/receipts/${id}/bill.pdf` });
      expect(pdf.statusCode, id).toBe(404);
    }
  });

  it('"Gift-card holders get no notification": a gift-card-only grant sends none, and still gets a receipt', async () => {
    const gift = await giftCard(term);
    const basketId = uniqueId('gift-basket');
    const before = smtp.mails.length;
    await uploadAndGrant(term, basketId, { giftCardId: gift });
    const receiptId = await receiptIdOf(basketId);
    expect(receiptId).not.toBeNull();
    const queued = await t.database.db
      .selectFrom('outbox_messages')
      .select('id')
      .where('topic', '=', 'purchase.notification')
      .where((eb) => eb(eb.cast('payload', 'text'), 'like', `%${receiptId}%`))
      .execute();
    expect(queued).toEqual([]);
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.mails.length).toBe(before);
    const page = await t.app.inject({ method: 'GET', url: `/receipts/${receiptId}` });
    expect(page.statusCode).toBe(200);
  });

  it('"Delivery is at least once, retried": an SMTP server that refuses three times gets the mail on the fourth attempt, every attempt recorded', async () => {
    const { cardId, email } = await profileWithCard(t, term, { language: 'en' });
    smtp.refuse = 3;
    smtp.refused = 0;
    const basketId = uniqueId('retry');
    await uploadAndGrant(term, basketId, { consumerIdentToken: cardId }, receiptBasket(false));
    const [mail] = await eventually(() => {
      const found = mailsTo(email);
      expect(found).toHaveLength(1);
      return found;
    });
    expect(smtp.refused).toBe(3);
    expect(mail?.subject).toBe(`Your purchase at ${term.serviceUserName}`);
    expect(mail?.attachments).toHaveLength(0);
    const receiptId = await receiptIdOf(basketId);
    // The dispatcher records the delivery after the SMTP server accepted the mail.
    const message = await eventually(async () => {
      const m = await t.database.db
        .selectFrom('outbox_messages')
        .select(['id', 'status', 'attempts'])
        .where('topic', '=', 'purchase.notification')
        .where((eb) => eb(eb.cast('payload', 'text'), 'like', `%${receiptId}%`))
        .executeTakeFirstOrThrow();
      expect(m.status).toBe('delivered');
      return m;
    });
    const attempts = await t.database.db
      .selectFrom('outbox_attempts')
      .select(['attempt', 'ok'])
      .where('message_id', '=', message.id)
      .orderBy('attempt')
      .execute();
    expect(attempts.map((a) => a.ok)).toEqual([false, false, false, true]);
  });

  it('sign-in links to /me: at most three per profile in fifteen minutes, the page answering the same each time', async () => {
    const { email } = await profileWithCard(t, term, { language: 'en' });
    const ask = () =>
      t.app.inject({
        method: 'POST',
        url: '/me/sign-in',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `email=${encodeURIComponent(email)}`,
      });
    const pages = [];
    for (let i = 0; i < 5; i += 1) pages.push(await ask());
    for (const page of pages) {
      expect(page.statusCode).toBe(200);
      expect(page.body).toBe(pages[0]?.body);
    }
    const signInMails = () => mailsTo(email).filter((m) => m.text?.includes('/me/sign-in/'));
    await eventually(() => expect(signInMails()).toHaveLength(3));
    // The links are written after the answers; the window moves on once all five are done.
    await t.app.services.notifications.afterAnswer.settled();
    t.clock.advance(15 * 60_000 + 1);
    expect((await ask()).statusCode).toBe(200);
    await eventually(() => expect(signInMails()).toHaveLength(4));
  });

  it('sign-in links to /me: five requests for one address side by side still make three links and three mails, not more', async () => {
    const { email, profileId } = await profileWithCard(t, term, { language: 'en' });
    const pages = await Promise.all(
      Array.from({ length: 5 }, () =>
        t.app.inject({
          method: 'POST',
          url: '/me/sign-in',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: `email=${encodeURIComponent(email)}`,
        }),
      ),
    );
    expect(pages.map((p) => p.statusCode)).toEqual([200, 200, 200, 200, 200]);
    await t.app.services.notifications.afterAnswer.settled();
    const links = await t.database.db
      .selectFrom('consumer_sign_ins')
      .select('token_sha256')
      .where('profile_id', '=', profileId)
      .execute();
    expect(links).toHaveLength(3);
    const signInMails = () => mailsTo(email).filter((m) => m.text?.includes('/me/sign-in/'));
    await eventually(() => expect(signInMails()).toHaveLength(3));
  });

  if (kind === 'postgres')
    it('sign-in links to /me: the page is answered before anything is looked up or written, so its time tells nothing of the address; with the links held by another session, a known address is answered at once and its link follows once they are free', async () => {
      const { email } = await profileWithCard(t, term, { language: 'en' });
      const signInMails = () => mailsTo(email).filter((m) => m.text?.includes('/me/sign-in/'));
      await t.database.db.connection().execute(async (other) => {
        await sql`BEGIN`.execute(other);
        try {
          // No link can be written or deleted while this session holds the table.
          await sql`LOCK TABLE consumer_sign_ins IN SHARE ROW EXCLUSIVE MODE`.execute(other);
          const asked = t.app.inject({
            method: 'POST',
            url: '/me/sign-in',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            payload: `email=${encodeURIComponent(email)}`,
          });
          // A page that waited for its link would be answered only after the ROLLBACK below.
          const page = await Promise.race([asked, sleep(20_000).then(() => null)]);
          expect(page?.statusCode).toBe(200);
          expect(page?.body).toContain('If an account has this address, a sign-in link is on its way.');
          expect(signInMails()).toHaveLength(0);
        } finally {
          await sql`ROLLBACK`.execute(other);
        }
      });
      const [mail] = await eventually(() => {
        const found = signInMails();
        expect(found).toHaveLength(1);
        return found;
      });
      const link = /\/me\/sign-in\/[A-Za-z0-9_-]+/.exec(mail?.text ?? '')?.[0] ?? '';
      expect((await t.app.inject({ method: 'GET', url: link })).statusCode).toBe(303);
    });

  it('sign-in links to /me: at most ten requests per client address in fifteen minutes, whatever addresses they name; then 429 with Retry-After, nothing sent, other addresses served', async () => {
    const { email } = await profileWithCard(t, term, { language: 'en' });
    const ask = (from: string, address: string, lang = 'en') =>
      t.app.inject({
        method: 'POST',
        url: '/me/sign-in',
        remoteAddress: from,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `email=${encodeURIComponent(address)}&lang=${lang}`,
      });
    const signInMails = () => mailsTo(email).filter((m) => m.text?.includes('/me/sign-in/'));
    // Ten addresses no account has, from one network (an IPv6 client by its /64).
    for (let i = 0; i < 10; i += 1) {
      const page = await ask(`2001:db8:1:2::${i + 1}`, `nobody-${i}@example.org`);
      expect(page.statusCode).toBe(200);
    }
    const refused = await ask('2001:db8:1:2:ffff::9', email);
    expect(refused.statusCode).toBe(429);
    // Until the window that began with the first request ends (this file's clock moves on meanwhile).
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(14 * 60);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(refused.body).toContain('Too many sign-in links were asked for from your network');
    expect(refused.body).toContain('try again in 15 minutes');
    const german = await ask('2001:db8:1:2::1', email, 'de');
    expect(german.statusCode).toBe(429);
    expect(german.body).toContain('Bitte versuchen Sie es in 15 Minuten erneut');
    // Another network is served meanwhile, and its link arrives.
    expect((await ask('198.51.100.7', email)).statusCode).toBe(200);
    await eventually(() => expect(signInMails()).toHaveLength(1));
    // Once the window has passed, the first network is served again.
    t.clock.advance(15 * 60_000);
    expect((await ask('2001:db8:1:2::1', email)).statusCode).toBe(200);
    await eventually(() => expect(signInMails()).toHaveLength(2));
  });

  it("the consumer's switch: with e-mail switched off, no mail is sent", async () => {
    const { cardId, email, profileId } = await profileWithCard(t, term);
    const merchant = await t.database.db
      .selectFrom('profiles')
      .select('merchant_id')
      .where('id', '=', profileId)
      .executeTakeFirstOrThrow();
    await t.database.db
      .insertInto('consumer_preferences')
      .values({
        merchant_id: merchant.merchant_id,
        profile_id: profileId,
        mail_enabled: false,
        push_enabled: true,
        updated_at: new Date(),
      })
      .execute();
    const basketId = uniqueId('off');
    await uploadAndGrant(term, basketId, { consumerIdentToken: cardId });
    const receiptId = await receiptIdOf(basketId);
    await eventually(async () => {
      const m = await t.database.db
        .selectFrom('outbox_messages')
        .select('status')
        .where((eb) => eb(eb.cast('payload', 'text'), 'like', `%${receiptId}%`))
        .executeTakeFirstOrThrow();
      expect(m.status).toBe('delivered');
    });
    expect(mailsTo(email)).toHaveLength(0);
  });
});
