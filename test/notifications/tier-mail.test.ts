import { describe, expect, it } from 'vitest';
import { type Terminal, databases, setupTerminal } from '../support/harness.js';
import {
  appWithMail,
  coffeeCardWithTiers,
  eventually,
  profileWithCard,
  receiptBasket,
  uniqueId,
  uploadAndGrant,
} from './support.js';

/**
 * Tier-change events and the mail "You reached Silver" (docs/decisions.md, "Status tiers",
 * "Tier-change events"): a booking that changes the consumer's tier writes its event in the
 * outbox with the booking; the dispatcher mails an upgrade to a consumer with an address.
 */

describe.each(databases)('tier-change events and the tier mail on %s', (kind) => {
  const app = appWithMail(kind);
  let term: Terminal | undefined;
  /** A terminal of a merchant whose scheme earns 1 point per 1.00 and has Silver at 8 points. */
  const terminal = async () => {
    if (term) return term;
    term = await setupTerminal(app.t);
    await coffeeCardWithTiers(app.t, term);
    return term;
  };
  const tierMails = (email: string) =>
    app.smtp.mails.filter((m) => JSON.stringify(m.to).includes(email) && /Silver|Gold/.test(m.subject ?? ''));
  const tierEvents = async (profileId: number) =>
    (
      await app.t.database.db
        .selectFrom('outbox_messages')
        .select(['payload', 'status'])
        .where('topic', '=', 'loyalty.tier_changed')
        .orderBy('id')
        .execute()
    )
      .map((r): Record<string, unknown> => ({ ...r.payload, status: r.status }))
      .filter((e) => e.profileId === profileId);
  /** Every tier event of the profile delivered: what was to be sent is sent. */
  const delivered = (profileId: number, count: number) =>
    eventually(async () => {
      const events = await tierEvents(profileId);
      expect(events.map((e) => e.status)).toEqual(Array<string>(count).fill('delivered'));
      return events;
    });

  it('a grant lifting the consumer into Silver writes one event and sends exactly one mail; the grant answered again sends no second one', async () => {
    const term = await terminal();
    const { profileId, cardId, email } = await profileWithCard(app.t, term, { language: 'en' });
    const basketId = uniqueId('tier');
    // 9.20: 9 points, Silver from 8.
    await uploadAndGrant(term, basketId, { consumerIdentToken: cardId });
    const [event] = await delivered(profileId, 1);
    expect(event).toMatchObject({
      profileId,
      schemeName: 'Coffee card',
      measure: 'points',
      valueBefore: 0,
      valueAfter: 9,
      before: null,
      after: { name: 'Silver', multiplierPermille: 1500 },
      next: { name: 'Gold', threshold: 30, missing: 21 },
      upgrade: true,
      cause: 'grant',
    });
    const [mail] = await eventually(() => {
      expect(tierMails(email)).toHaveLength(1);
      return tierMails(email);
    });
    expect(mail?.subject).toBe('You reached Silver in Coffee card');
    expect(mail?.from?.value[0]?.name).toBe(term.serviceUserName);
    for (const part of [String(mail?.text), String(mail?.html)]) {
      expect(part).toContain(`you reached the tier Silver in Coffee card at ${term.serviceUserName}.`);
      expect(part).toContain('you earn 1.5 times the points');
      expect(part).toContain('21 points more take you to Gold.');
      expect(part).toContain(`${app.t.config.publicBaseUrl}/me`);
    }

    // The till sends the grant again: answered as before, nothing booked, no second event or mail.
    const again = await term.pos('POST', `/baskets/${basketId}/grant`, {
      sign: basketId,
      query: { redeemedInPos: 'true' },
    });
    expect(again.statusCode, again.body).toBe(200);
    // Another basket in Silver changes no tier: no event.
    await uploadAndGrant(term, uniqueId('tier'), { consumerIdentToken: cardId });
    await eventually(() =>
      expect(app.smtp.mails.filter((m) => JSON.stringify(m.to).includes(email))).toHaveLength(3),
    );
    expect(await delivered(profileId, 1)).toHaveLength(1);
    expect(tierMails(email)).toHaveLength(1);
  });

  it('the mail is in German for a German consumer, and a return that lowers the tier writes its event and sends no mail', async () => {
    const term = await terminal();
    const { profileId, cardId, email } = await profileWithCard(app.t, term, { language: 'de-DE' });
    const basketId = uniqueId('tier');
    await uploadAndGrant(term, basketId, { consumerIdentToken: cardId });
    const [mail] = await eventually(() => {
      expect(tierMails(email)).toHaveLength(1);
      return tierMails(email);
    });
    expect(mail?.subject).toBe('Sie haben Silver erreicht: Coffee card');
    expect(mail?.text).toContain(
      `Sie haben die Stufe Silver in Coffee card bei ${term.serviceUserName} erreicht.`,
    );
    expect(mail?.text).toContain('das 1,5-Fache an Punkten');
    expect(mail?.text).toContain('Noch 21 Punkte, dann erreichen Sie Gold.');

    // Both cappuccinos come back: 9 - 7 = 2 points in the period, below Silver.
    const returned = await term.pos('POST', `/baskets/${basketId}/return`, {
      body: { ReturnId: 'R1', Positions: [{ PositionId: 1, Amount: 2 }] },
      sign: `${basketId}R1`,
    });
    expect(returned.statusCode, returned.body).toBe(200);
    const events = await delivered(profileId, 2);
    expect(events[1]).toMatchObject({
      before: { name: 'Silver' },
      after: null,
      upgrade: false,
      cause: 'return',
      valueBefore: 9,
    });
    expect(events[1]?.valueAfter).toBeLessThan(8);
    // The purchase mails of the grant and the return arrive; no second tier mail.
    await eventually(() =>
      expect(app.smtp.mails.filter((m) => JSON.stringify(m.to).includes(email))).toHaveLength(3),
    );
    expect(tierMails(email)).toHaveLength(1);
  });

  it('a consumer without an e-mail address reaches Silver: the event is written, no mail is sent', async () => {
    const term = await terminal();
    const p = await app.t.admin('POST', `/merchants/${term.serviceUserName}/profiles`, {
      fullName: 'No Mail',
    });
    expect(p.statusCode, p.body).toBe(201);
    const profileId = (p.json() as { id: number }).id;
    const cardId = uniqueId('card');
    const link = await app.t.admin('POST', `/profiles/${profileId}/tokens`, {
      tokenId: cardId,
      tokenType: 'customer',
    });
    expect(link.statusCode, link.body).toBe(200);
    const before = app.smtp.mails.length;
    await uploadAndGrant(term, uniqueId('tier'), { consumerIdentToken: cardId }, receiptBasket(false));
    const [event] = await delivered(profileId, 1);
    expect(event).toMatchObject({ after: { name: 'Silver' }, upgrade: true });
    const attempts = await app.t.database.db
      .selectFrom('outbox_attempts as a')
      .innerJoin('outbox_messages as m', 'm.id', 'a.message_id')
      .select('a.detail')
      .where('m.topic', '=', 'loyalty.tier_changed')
      .execute();
    expect(attempts.some((a) => JSON.stringify(a.detail).includes('no_address'))).toBe(true);
    expect(app.smtp.mails.length).toBe(before);
  });

  it("by spend: the basket's own gross lifts the consumer, and the mail says what is missing in the currency", async () => {
    // A merchant of its own, whose scheme's tiers go by spend in the calendar month.
    const spendTill = await setupTerminal(app.t);
    const res = await app.t.admin('POST', `/merchants/${spendTill.serviceUserName}/loyaltySchemes`, {
      name: 'Breakfast club',
      earn: [{ per: 'amount', amount: 1, points: 1 }],
      tiers: [
        { name: 'Regular', threshold: 9, multiplier: 1.25 },
        { name: 'VIP', threshold: 100, multiplier: 2 },
      ],
      tierBasis: { measure: 'spend', period: { calendar: 'month' } },
    });
    expect(res.statusCode, res.body).toBe(201);
    const { profileId, cardId, email } = await profileWithCard(app.t, spendTill, { language: 'en' });
    await uploadAndGrant(spendTill, uniqueId('spend'), { consumerIdentToken: cardId });
    const [event] = await delivered(profileId, 1);
    // 9.20 bought: 920 minor units, Regular from 9.00, 90.80 more for VIP.
    expect(event).toMatchObject({
      measure: 'spend',
      valueBefore: 0,
      valueAfter: 920,
      after: { name: 'Regular', multiplierPermille: 1250 },
      next: { name: 'VIP', missing: 9080 },
    });
    const mails = await eventually(() => {
      const found = app.smtp.mails.filter(
        (m) => JSON.stringify(m.to).includes(email) && /Regular/.test(m.subject ?? ''),
      );
      expect(found).toHaveLength(1);
      return found;
    });
    expect(mails[0]?.subject).toBe('You reached Regular in Breakfast club');
    expect(mails[0]?.text).toContain('you earn 1.25 times the points');
    expect(mails[0]?.text).toContain('€90.80 more take you to VIP.');
  });
});
