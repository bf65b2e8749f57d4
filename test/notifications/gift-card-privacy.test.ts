import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createSignIn, profilesByEmail } from '../../src/notifications/consumer-auth.store.js';
import { giftCardPrivacy } from '../../src/store/migrations/0026-gift-card-privacy.js';
import { tokens } from '../cards/cards-support.js';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';
import {
  type MailCatcher,
  eventually,
  giftCard,
  profileWithCard,
  receiptBasket,
  startMailCatcher,
  uniqueId,
  uploadAndGrant,
} from './support.js';

/** A basket that sells a gift card: the product the issue saw named in a purchase mail. */
function giftCardBasket(contextIdentifiers: string[] = []) {
  return {
    ...receiptBasket(false),
    ...(contextIdentifiers.length > 0 ? { ContextIdentifiers: contextIdentifiers } : {}),
    Positions: [
      {
        PositionId: 1,
        ProductId: '9001',
        ProductName: 'Gift card Fifty',
        Unit: 0,
        Amount: 1,
        CurrentGrossPrice: 50,
        VatInPercent: 0,
      },
    ],
  };
}

// POS interface v3, "gift card": "Handled exactly like a customer card. The only difference is that
// its holder has no public consumer-portal access to its activity (loading, unloading, baskets
// bought or paid with it)." docs/decisions.md, "Gift-card privacy and hardened pages".
describe.each(databases)('a gift card stays private on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let smtp: MailCatcher;
  let ticking: NodeJS.Timeout;

  beforeAll(async () => {
    smtp = await startMailCatcher();
    t = await startApp(kind, { smtpUrl: smtp.url }, { OUTBOX_POLL_MS: '20' });
    ticking = setInterval(() => t.clock.advance(100), 20);
    term = await setupTerminal(t);
    const scheme = await t.admin(
      'POST',
      `/merchants/${encodeURIComponent(term.serviceUserName)}/loyaltySchemes`,
      { name: 'Coffee points', earn: [{ per: 'amount', amount: 1, points: 1 }], reward: null },
    );
    expect(scheme.statusCode, scheme.body).toBe(201);
  });
  afterAll(async () => {
    clearInterval(ticking);
    await t?.close();
    await smtp?.close();
  });

  const mailsTo = (email: string) => smtp.mails.filter((m) => JSON.stringify(m.to).includes(email));

  const receiptIdOf = async (basketId: string): Promise<string> => {
    const row = await t.database.db
      .selectFrom('baskets')
      .select('grant_result')
      .where('tracking_unit_id', '=', term.trackingUnitId)
      .where('basket_id', '=', basketId)
      .executeTakeFirstOrThrow();
    const id = row.grant_result?.receiptId;
    if (id === undefined) throw new Error(`basket ${basketId} has no receipt`);
    return id;
  };

  const queuedFor = async (receiptId: string) =>
    t.database.db
      .selectFrom('outbox_messages')
      .select('id')
      .where('topic', '=', 'purchase.notification')
      .where((eb) => eb(eb.cast('payload', 'text'), 'like', `%${receiptId}%`))
      .execute();

  /** The /me page of the profile with this address, signed in by a link as the consumer would be. */
  async function mePage(email: string): Promise<string> {
    const [profile] = await profilesByEmail(t.database.db, email);
    if (!profile) throw new Error('no profile');
    const token = await createSignIn(t.database.db, profile, t.clock.nowMs());
    const signIn = await t.app.inject({ method: 'GET', url: `/me/sign-in/${token}` });
    expect(signIn.statusCode).toBe(303);
    const cookie = String(signIn.headers['set-cookie']).split(';')[0] ?? '';
    const page = await t.app.inject({ method: 'GET', url: '/me', headers: { cookie } });
    expect(page.statusCode).toBe(200);
    return page.body;
  }

  /** A profile with a customer card and a gift card, both linked to it. */
  async function holderOfBoth(): Promise<{ profileId: number; cardId: string; gift: string; email: string }> {
    const holder = await profileWithCard(t, term, { language: 'en' });
    const gift = await giftCard(term);
    const linked = await t.admin('POST', `/profiles/${holder.profileId}/tokens`, {
      tokenId: gift,
      tokenType: 'gift',
    });
    expect(linked.statusCode, linked.body).toBe(200);
    return { ...holder, gift };
  }

  /**
   * The rule, checked the way the consumer would notice a leak: no notification queued for the
   * basket, no mail in the inbox after the dispatcher had its rounds, and neither the basket's
   * receipt nor the gift card on /me. A control purchase with the customer card alone, made after
   * the private one, shows the mail and the page do work.
   */
  async function expectPrivate(
    who: { cardId: string; gift: string; email: string },
    basketId: string,
  ): Promise<void> {
    const receiptId = await receiptIdOf(basketId);
    expect(await queuedFor(receiptId)).toEqual([]);
    const control = uniqueId('control');
    // The control purchase comes after everything of the private one, on the service's clock too:
    // a basket uploaded at the very instant of a till payment counts as open for it.
    t.clock.advance(1000);
    await uploadAndGrant(term, control, { consumerIdentToken: who.cardId }, receiptBasket(false));
    const controlReceipt = await receiptIdOf(control);
    await eventually(() => expect(mailsTo(who.email)).toHaveLength(1));
    await new Promise((r) => setTimeout(r, 200));
    const mails = mailsTo(who.email);
    expect(mails).toHaveLength(1);
    expect(mails[0]?.text).toContain(controlReceipt);
    expect(mails[0]?.text).not.toContain('Gift card Fifty');
    const me = await mePage(who.email);
    expect(me).toContain(`/receipts/${controlReceipt}`);
    expect(me).not.toContain(receiptId);
    expect(me).not.toContain(who.gift);
    expect(me.match(/href="\/receipts\//g)).toHaveLength(1);
  }

  it('a gift card linked to the profile and named as consumerIdentToken: no mail, not on /me', async () => {
    const who = await holderOfBoth();
    const basketId = uniqueId('gift-as-token');
    await uploadAndGrant(term, basketId, { consumerIdentToken: who.gift }, giftCardBasket());
    await expectPrivate(who, basketId);
  });

  it('paid with a gift card (giftCardId) while the customer card identifies the consumer: no mail, not on /me', async () => {
    const who = await holderOfBoth();
    const basketId = uniqueId('gift-paid');
    await uploadAndGrant(
      term,
      basketId,
      { consumerIdentToken: who.cardId, giftCardId: who.gift },
      giftCardBasket(),
    );
    await expectPrivate(who, basketId);
  });

  it('giftCardId alone, the gift card linked to the profile: no mail, not on /me', async () => {
    const who = await holderOfBoth();
    const basketId = uniqueId('gift-only');
    await uploadAndGrant(term, basketId, { giftCardId: who.gift }, giftCardBasket());
    await expectPrivate(who, basketId);
  });

  it('the gift card as a token in the basket (ContextIdentifiers) beside the customer card: no mail, not on /me', async () => {
    const who = await holderOfBoth();
    const basketId = uniqueId('gift-in-basket');
    await uploadAndGrant(term, basketId, { consumerIdentToken: who.cardId }, giftCardBasket([who.gift]));
    await expectPrivate(who, basketId);
  });

  it('the gift card as the only token in the basket (ContextIdentifiers): no mail, not on /me', async () => {
    const who = await holderOfBoth();
    const basketId = uniqueId('gift-context-only');
    await uploadAndGrant(term, basketId, {}, giftCardBasket([who.gift]));
    await expectPrivate(who, basketId);
  });

  it("paid with a gift card while the consumer's one-time password identifies them: no mail, not on /me", async () => {
    const who = await holderOfBoth();
    const otp = await t.admin('POST', `/profiles/${who.profileId}/otps`, {});
    expect(otp.statusCode, otp.body).toBe(201);
    const code = (otp.json() as { otp: string }).otp;
    const basketId = uniqueId('gift-otp');
    await uploadAndGrant(term, basketId, { giftCardId: who.gift }, giftCardBasket([code]));
    await expectPrivate(who, basketId);
  });

  it('a gift card not yet linked at the upload and linked before the grant: no mail, not on /me', async () => {
    const holder = await profileWithCard(t, term, { language: 'en' });
    const gift = await giftCard(term);
    const basketId = uniqueId('gift-linked-later');
    const up = await term.pos('POST', `/baskets/${basketId}`, {
      query: { consumerIdentToken: gift },
      body: giftCardBasket(),
    });
    expect(up.statusCode, up.body).toBe(200);
    const linked = await t.admin('POST', `/profiles/${holder.profileId}/tokens`, {
      tokenId: gift,
      tokenType: 'gift',
    });
    expect(linked.statusCode, linked.body).toBe(200);
    const grant = await term.pos('POST', `/baskets/${basketId}/grant`, {
      sign: basketId,
      query: { redeemedInPos: 'true' },
    });
    expect(grant.statusCode, grant.body).toBe(200);
    await expectPrivate({ ...holder, gift }, basketId);
  });

  it('a return of a basket paid with a gift card notifies no one, though it takes points back', async () => {
    const who = await holderOfBoth();
    const basketId = uniqueId('gift-return');
    await uploadAndGrant(
      term,
      basketId,
      { consumerIdentToken: who.cardId, giftCardId: who.gift },
      giftCardBasket(),
    );
    const returnId = uniqueId('ret');
    const ret = await term.pos('POST', `/baskets/${basketId}/return`, {
      body: { ReturnId: returnId, Positions: [{ PositionId: 1, Amount: 1 }] },
      sign: `${basketId}${returnId}`,
    });
    expect(ret.statusCode, ret.body).toBe(200);
    // The points the purchase earned were taken back: a return a customer card's basket notifies.
    const loyalty = (ret.json() as { LoyaltyInfo: { Details: { NewPoints: number }[] }[] }).LoyaltyInfo;
    expect(loyalty[0]?.Details[0]?.NewPoints).toBe(0);
    await expectPrivate(who, basketId);
  });

  it("paid partly from the profile's balance and partly with a gift card: the balance movement shows, without the basket's receipt", async () => {
    const who = await holderOfBoth();
    const cards = tokens(term);
    expect((await cards.add(who.cardId, '20.00')).statusCode).toBe(200);
    const basketId = uniqueId('gift-and-balance');
    const up = await term.pos('POST', `/baskets/${basketId}`, {
      query: { consumerIdentToken: who.cardId, giftCardId: who.gift },
      body: giftCardBasket(),
    });
    expect(up.statusCode, up.body).toBe(200);
    expect((await cards.withdraw(who.cardId, '7.80')).statusCode).toBe(200);
    const grant = await term.pos('POST', `/baskets/${basketId}/grant`, {
      sign: basketId,
      query: { redeemedInPos: 'true' },
    });
    expect(grant.statusCode, grant.body).toBe(200);
    const receiptId = await receiptIdOf(basketId);
    const me = await mePage(who.email);
    expect(me).toMatch(/7[.,]80/);
    expect(me).not.toContain(receiptId);
    await expectPrivate(who, basketId);
  });

  it("loading and unloading a linked gift card (card operations) show nowhere in the consumer's view", async () => {
    const who = await holderOfBoth();
    const cards = tokens(term);
    expect((await cards.add(who.gift, '50.00')).statusCode).toBe(200);
    expect((await cards.withdraw(who.gift, '12.34')).statusCode).toBe(200);
    const me = await mePage(who.email);
    expect(me).not.toContain(who.gift);
    // The profile's own balance and movements: nothing of the gift card's 50.00 or 12.34.
    expect(me).not.toMatch(/50[.,]00/);
    expect(me).not.toMatch(/12[.,]34/);
    expect(me).not.toMatch(/37[.,]66/);
    await new Promise((r) => setTimeout(r, 200));
    expect(mailsTo(who.email)).toHaveLength(0);
  });

  it('baskets stored before the mark get it from the migration: by giftCardId, by a gift card as consumerIdentToken or in ContextIdentifiers, and no other', async () => {
    const who = await holderOfBoth();
    const named = {
      byParameter: { query: { giftCardId: who.gift }, body: giftCardBasket() },
      byToken: { query: { consumerIdentToken: who.gift }, body: giftCardBasket() },
      inBasket: { query: { consumerIdentToken: who.cardId }, body: giftCardBasket([` ${who.gift} `]) },
      customerCard: { query: { consumerIdentToken: who.cardId }, body: giftCardBasket(['COUPON-1']) },
    };
    const ids: Record<string, string> = {};
    for (const [name, { query, body }] of Object.entries(named)) {
      ids[name] = uniqueId(`old-${name}`);
      const up = await term.pos('POST', `/baskets/${ids[name]}`, { query, body });
      expect(up.statusCode, up.body).toBe(200);
    }
    const marks = async () => {
      const rows = await t.database.db
        .selectFrom('baskets')
        .select(['basket_id', sql<string | null>`result->>'giftCard'`.as('mark')])
        .where('basket_id', 'in', Object.values(ids))
        .execute();
      return Object.fromEntries(
        Object.entries(ids).map(([name, id]) => [name, rows.find((r) => r.basket_id === id)?.mark ?? null]),
      );
    };
    expect(await marks()).toEqual({
      byParameter: 'true',
      byToken: 'true',
      inBasket: 'true',
      customerCard: null,
    });
    // As stored before the upload marked them.
    await sql`UPDATE baskets SET result = (result::jsonb - 'giftCard')::json WHERE basket_id IN (${sql.join(Object.values(ids))})`.execute(
      t.database.db,
    );
    expect(Object.values(await marks())).toEqual([null, null, null, null]);
    const backfill = giftCardPrivacy.statements.find((s) => s.startsWith('UPDATE baskets')) ?? '';
    expect(backfill).toMatch(/^UPDATE baskets/);
    await sql.raw(backfill).execute(t.database.db);
    expect(await marks()).toEqual({
      byParameter: 'true',
      byToken: 'true',
      inBasket: 'true',
      customerCard: null,
    });
  });
});
