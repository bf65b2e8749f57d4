import { beforeAll, describe, expect, it } from 'vitest';
import { type Terminal, databases, setupTerminal } from '../support/harness.js';
import {
  appWithMail,
  coffeeCardWithTiers,
  consumerSignIn,
  eventually,
  localPushService,
  profileWithCard,
  subscribeToPush,
  uniqueId,
  uploadAndGrant,
} from './support.js';

/**
 * The push of an upgrade (docs/decisions.md, "Status tiers", "The push"): a consumer who reaches a
 * tier and subscribed a browser with push on gets "You reached Silver" over the Web Push protocol
 * (VAPID, aes128gcm, checked and decrypted by the local push service), in the profile's language;
 * a grant answered again and a downgrade send none.
 */

interface TierPush {
  readonly title: string;
  readonly body: string;
  readonly url: string;
  readonly event: string;
}

describe.each(databases)('the push of a tier upgrade on %s', (kind) => {
  const push = localPushService();
  const app = appWithMail(kind, { WEBHOOK_ALLOW_PRIVATE: 'true' });
  let term: Terminal;

  beforeAll(async () => {
    term = await setupTerminal(app.t);
    await coffeeCardWithTiers(app.t, term);
  });

  /** What arrived at the subscription, decrypted: its tier messages and its purchase messages. */
  const arrived = (path: string) => {
    expect(push.failures).toEqual([]);
    const all = push.received.filter((m) => m.path === path).map((m) => JSON.parse(m.plaintext) as TierPush);
    return {
      tier: all.filter((m) => m.event === 'tier_changed'),
      purchases: all.filter((m) => m.event !== 'tier_changed'),
    };
  };
  /** The delivery attempts of the profile's tier events, in order. */
  const attempts = async (profileId: number) =>
    (
      await app.t.database.db
        .selectFrom('outbox_attempts as a')
        .innerJoin('outbox_messages as m', 'm.id', 'a.message_id')
        .select(['m.payload', 'a.detail'])
        .where('m.topic', '=', 'loyalty.tier_changed')
        .orderBy('a.id')
        .execute()
    )
      .filter((r) => r.payload.profileId === profileId)
      .map((r) => r.detail);

  it('a grant lifting a subscribed consumer into Silver sends one push "You reached Silver" with the short lines of the mail; the grant answered again sends no second one', async () => {
    const { profileId, cardId, email } = await profileWithCard(app.t, term, { language: 'en' });
    const { path } = await subscribeToPush(app.t, push, email);
    const basketId = uniqueId('tier');
    // 9.20: 9 points, Silver from 8.
    await uploadAndGrant(term, basketId, { consumerIdentToken: cardId });
    const [message] = await eventually(() => {
      const { tier, purchases } = arrived(path);
      expect(purchases).toHaveLength(1);
      expect(tier).toHaveLength(1);
      return tier;
    });
    expect(message).toEqual({
      title: 'You reached Silver in Coffee card',
      body: 'From your next purchase on, you earn 1.5 times the points.\n21 points more take you to Gold.',
      url: `${app.t.config.publicBaseUrl}/me`,
      event: 'tier_changed',
    });
    // The dispatcher records its attempt after the push service answered: waited for, as below.
    await eventually(async () =>
      expect(await attempts(profileId)).toEqual([{ mail: 'sent', push: ['sent'] }]),
    );

    // The till sends the grant again: nothing booked, no event, no second push.
    const again = await term.pos('POST', `/baskets/${basketId}/grant`, {
      sign: basketId,
      query: { redeemedInPos: 'true' },
    });
    expect(again.statusCode, again.body).toBe(200);
    // A further basket in Silver changes no tier: its purchase push arrives, no tier push.
    await uploadAndGrant(term, uniqueId('tier'), { consumerIdentToken: cardId });
    await eventually(() => expect(arrived(path).purchases).toHaveLength(2));
    expect(arrived(path).tier).toHaveLength(1);
    expect(await attempts(profileId)).toHaveLength(1);
  });

  it('the push is in German for a German consumer, and a return that lowers the tier sends no push', async () => {
    const { profileId, cardId, email } = await profileWithCard(app.t, term, { language: 'de-DE' });
    const { path } = await subscribeToPush(app.t, push, email);
    const basketId = uniqueId('tier');
    await uploadAndGrant(term, basketId, { consumerIdentToken: cardId });
    const [message] = await eventually(() => {
      expect(arrived(path).tier).toHaveLength(1);
      return arrived(path).tier;
    });
    expect(message?.title).toBe('Sie haben Silver erreicht: Coffee card');
    expect(message?.body).toBe(
      'Ab Ihrem nächsten Einkauf sammeln Sie das 1,5-Fache an Punkten.\nNoch 21 Punkte, dann erreichen Sie Gold.',
    );

    // Both cappuccinos come back: 2 points in the period, below Silver. The event is delivered
    // with nothing sent; the return's purchase push arrives.
    const returned = await term.pos('POST', `/baskets/${basketId}/return`, {
      body: { ReturnId: 'R1', Positions: [{ PositionId: 1, Amount: 2 }] },
      sign: `${basketId}R1`,
    });
    expect(returned.statusCode, returned.body).toBe(200);
    await eventually(async () =>
      expect(await attempts(profileId)).toEqual([
        { mail: 'sent', push: ['sent'] },
        { mail: 'not_an_upgrade', push: 'not_an_upgrade' },
      ]),
    );
    await eventually(() => expect(arrived(path).purchases).toHaveLength(2));
    expect(arrived(path).tier).toHaveLength(1);
  });

  it('a consumer who switched push off gets the mail and no push', async () => {
    const { profileId, cardId, email } = await profileWithCard(app.t, term, { language: 'en' });
    const { path, cookie, csrf } = await subscribeToPush(app.t, push, email);
    const saved = await app.t.app.inject({
      method: 'POST',
      url: '/me/preferences',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `csrf=${csrf}&mail=on`,
    });
    expect(saved.statusCode, saved.body).toBe(303);
    await uploadAndGrant(term, uniqueId('tier'), { consumerIdentToken: cardId });
    await eventually(async () =>
      expect(await attempts(profileId)).toEqual([{ mail: 'sent', push: 'switched_off' }]),
    );
    expect(
      app.smtp.mails.some((m) => JSON.stringify(m.to).includes(email) && /Silver/.test(m.subject ?? '')),
    ).toBe(true);
    expect(push.received.filter((m) => m.path === path)).toEqual([]);
  });

  it('the switches on /me name both messages they turn on or off: each purchase and a tier reached, in English and German', async () => {
    const { email } = await profileWithCard(app.t, term, { language: 'en' });
    const { cookie } = await consumerSignIn(app.t, email);
    const switches = async (lang: string) => {
      const page = await app.t.app.inject({ method: 'GET', url: `/me?lang=${lang}`, headers: { cookie } });
      expect(page.statusCode).toBe(200);
      return page.body;
    };
    const en = await switches('en');
    expect(en).toContain('E-mail after each purchase and when you reach a new tier');
    expect(en).toContain('Push message after each purchase and when you reach a new tier');
    const de = await switches('de');
    expect(de).toContain('E-Mail nach jedem Einkauf und beim Erreichen einer neuen Stufe');
    expect(de).toContain('Push-Nachricht nach jedem Einkauf und beim Erreichen einer neuen Stufe');
  });
});
