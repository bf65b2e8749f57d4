import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupCheckout } from '../checkout/checkout-support.js';
import { type TestApp, databases, startApp } from '../support/harness.js';
import { type PortalSession, portalPage, portalSession } from './portal-support.js';

const OWNER = { email: 'owner@links.test', password: 'a-long-enough-password' };

/**
 * "Every bad input gets a clear error and changes nothing; no request may take the server down":
 * the portal's pages read their filters from the link, which a person can edit. A field given
 * twice counts once, a day that is no day of the calendar is left out, and U+0000 (which no text of
 * the database holds) is a 400 page that says the link is not valid, never a failure of the server.
 */
describe.each(databases)('portal pages opened by hand-made links (%s)', (kind) => {
  let t: TestApp;
  let owner: PortalSession;
  let card = '';
  let profileId = 0;

  beforeAll(async () => {
    t = await startApp(kind);
    const c = await setupCheckout(t);
    const u = encodeURIComponent(c.serviceUserName);
    expect((await t.admin('POST', `/merchants/${u}/portalUsers`, OWNER)).statusCode).toBe(201);
    owner = await portalSession(t, OWNER.email, OWNER.password);
    const p = await c.profile({ balance: 1_000 });
    card = p.card;
    profileId = p.id;
  });
  afterAll(() => t?.close());

  /** Each page with the fields it reads from its link. */
  const pages = (): [string, string[]][] => [
    ['/portal/dashboard', ['preset', 'from', 'to', 'outletId']],
    [
      '/portal/baskets',
      ['from', 'to', 'card', 'number', 'trackingUnitId', 'outletId', 'state', 'receiptMail', 'cursor'],
    ],
    ['/portal/orders', ['from', 'to', 'number', 'clientId', 'profileId', 'state', 'receiptMail', 'cursor']],
    ['/portal/cards', ['tokenId', 'q']],
    [`/portal/cards?tokenId=${card}`, ['until', 'balanceCursor', 'pointsCursor']],
    [`/portal/profiles/${profileId}`, ['until', 'balanceCursor']],
    ['/portal/catalog', ['sortimentId', 'search', 'cursor']],
    ['/portal/developers', ['webhookId', 'cursor']],
    ['/portal/campaigns/new', ['template']],
  ];

  it('a field given twice or a day that does not exist is no failure of the server', async () => {
    for (const [path, fields] of pages()) {
      const sep = path.includes('?') ? '&' : '?';
      for (const field of fields) {
        for (const value of [
          `${field}=a&${field}=b`,
          `${field}=2026-13-45`,
          `${field}=2026-02-30`,
          `${field}[x]=1`,
        ]) {
          const res = await portalPage(t, owner, `${path}${sep}${value}`);
          expect(res.statusCode, `${path}${sep}${value}`).toBeLessThan(500);
        }
      }
    }
  });

  it("U+0000 in a field is a 400 page saying the link is not valid, in the user's language", async () => {
    for (const [path, fields] of pages()) {
      const sep = path.includes('?') ? '&' : '?';
      for (const field of fields) {
        const res = await portalPage(t, owner, `${path}${sep}${field}=a%00b`);
        expect(res.statusCode, `${path} ${field}`).toBe(400);
        expect(res.body).toContain('Link not valid');
      }
    }
    const german = await t.app.inject({
      method: 'GET',
      url: '/portal/baskets?card=a%00b',
      headers: { cookie: owner.cookie, 'accept-language': 'de' },
    });
    expect(german.statusCode).toBe(400);
    expect(german.body).toContain('Ungültiger Link');
  });
});
