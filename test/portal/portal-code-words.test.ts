import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokens } from '../cards/cards-support.js';
import { type TestApp, databases, setupTerminal, startApp } from '../support/harness.js';
import { type PortalSession, portalSession } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';

/**
 * The portal's pages show the codes of its JSON API (campaign types, card states, roles) in words
 * for people, in English as in German: an owner reads "Bill discount", not "bill".
 */
describe.each(databases)('English pages name codes in words (%s)', (kind) => {
  let t: TestApp;
  let owner: PortalSession;

  beforeAll(async () => {
    t = await startApp(kind);
    const term = await setupTerminal(t);
    const u = encodeURIComponent(term.serviceUserName);
    for (const c of [
      { name: 'Cappuccino -20 %', type: 'product', products: [{ plu: '1001' }], discount: { percent: 20 } },
      { name: '1.00 off from 15.00', type: 'bill', minTotal: 15, discount: { amount: 1 } },
    ]) {
      const res = await t.admin('POST', `/merchants/${u}/campaigns`, c);
      expect(res.statusCode, res.body).toBe(201);
    }
    expect((await tokens(term).register('card-words')).statusCode).toBe(200);
    await t.admin('POST', `/merchants/${u}/portalUsers`, {
      email: `words-${kind}@dash.test`,
      password: PASSWORD,
    });
    owner = await portalSession(t, `words-${kind}@dash.test`, PASSWORD);
  }, 120_000);
  afterAll(() => t?.close());

  const page = async (url: string) => {
    const res = await t.app.inject({ method: 'GET', url, headers: { cookie: owner.cookie } });
    expect(res.statusCode).toBe(200);
    return res.body;
  };

  it('campaign types read "Article discount" and "Bill discount", not product and bill', async () => {
    const body = await page('/portal/campaigns');
    const cell = (name: string) => new RegExp(`>${name}</a></td>\\s*<td[^>]*>([^<]*)</td>`).exec(body)?.[1];
    expect([cell('Cappuccino -20 %'), cell('1.00 off from 15.00')]).toEqual([
      'Article discount',
      'Bill discount',
    ]);
  });

  it('a card in use reads "In use", not registered; the signed-in role reads "Owner"', async () => {
    const body = await page('/portal/cards?tokenId=card-words');
    expect(/id="card-state">([^<]*)</.exec(body)?.[1]?.trim()).toBe('In use');
    expect(body).toContain(`words-${kind}@dash.test (Owner)`);
    expect(body).not.toMatch(/>\s*registered\s*</);
  });
});
