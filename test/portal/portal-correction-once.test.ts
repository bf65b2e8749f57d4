import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokens } from '../cards/cards-support.js';
import { type TestBrowser, openChromium, serve } from '../support/browser.js';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';
import { expectLedgerSound } from '../checkout/checkout-support.js';
import { type PortalSession, newPortalSession, portalCall, signIn } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';

type Card = {
  balanceMinor: number;
  transfers: { kind: string; amountMinor: number; reason: string | null }[];
};

/**
 * docs/decisions.md, "A balance correction sent twice": an owner's correction carries the request's
 * own id (the card page makes one with its form), so a correction sent again, one after the other
 * or at the same moment, moves the balance once and keeps one reason; the id used for another card
 * or amount is refused and changes nothing.
 */
describe.each(databases)('a balance correction sent twice books once (%s)', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let owner: PortalSession;
  let browser: TestBrowser;
  let baseUrl = '';
  const email = `owner-${kind}@correction-once.test`;

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    owner = await newPortalSession(t, term.serviceUserName, { email, password: PASSWORD, lang: 'de' });
    baseUrl = await serve(t);
    browser = await openChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const fundedCard = async () => {
    const card = `once-${randomUUID().slice(0, 8)}`;
    await tokens(term).register(card);
    await tokens(term).add(card, '10');
    return card;
  };
  const correct = (card: string, body: Record<string, unknown>) =>
    portalCall(t, owner, 'POST', `/cards/${card}/corrections`, body);
  const cardOf = async (card: string) => (await portalCall(t, owner, 'GET', `/cards/${card}`)).json() as Card;

  it('the same request, again and at once, moves the balance once with one reason', async () => {
    const card = await fundedCard();
    const body = { amount: '-2.50', reason: 'Kasse verzählt', requestId: randomUUID() };
    const answers = await Promise.all([correct(card, body), correct(card, body), correct(card, body)]);
    answers.push(await correct(card, body));
    for (const res of answers) {
      expect(res.statusCode, res.body).toBe(200);
      expect((res.json() as Card).balanceMinor).toBe(750);
    }
    const after = await cardOf(card);
    expect(after.transfers.map((x) => [x.kind, x.amountMinor, x.reason])).toEqual([
      ['withdrawal', 250, 'Kasse verzählt'],
      ['top_up', 1_000, null],
    ]);
    const reasons = await t.database.db
      .selectFrom('portal_corrections')
      .select('reason')
      .where('token_id', '=', card)
      .execute();
    expect(reasons).toHaveLength(1);
    await expectLedgerSound(t);
  });

  it('the same requestId for another amount, direction or card is refused and changes nothing; without one each request books', async () => {
    const card = await fundedCard();
    const other = await fundedCard();
    const requestId = randomUUID();
    expect((await correct(card, { amount: '-1.00', reason: 'Erste Korrektur', requestId })).statusCode).toBe(
      200,
    );
    for (const [to, amount] of [
      [card, '-2.00'],
      [card, '1.00'],
      [other, '-1.00'],
    ] as const) {
      const res = await correct(to, { amount, reason: 'Noch einmal', requestId });
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json().error.code).toBe('request_id_reused');
    }
    expect((await cardOf(card)).balanceMinor).toBe(900);
    expect((await cardOf(other)).balanceMinor).toBe(1_000);
    // The first correction keeps its reason.
    expect((await cardOf(card)).transfers[0]?.reason).toBe('Erste Korrektur');
    // A refused first try leaves nothing: the same id may then book.
    const fresh = randomUUID();
    const tooMuch = await correct(other, { amount: '-50', reason: 'Zu viel', requestId: fresh });
    expect(tooMuch.json().error.code).toBe('insufficient_balance');
    expect((await correct(other, { amount: '-5', reason: 'Richtig', requestId: fresh })).statusCode).toBe(
      200,
    );
    expect((await cardOf(other)).balanceMinor).toBe(500);
    // Without a requestId, every request is a correction of its own (as before).
    for (let i = 0; i < 2; i++) {
      expect((await correct(other, { amount: '1', reason: 'Ohne Kennung' })).statusCode).toBe(200);
    }
    expect((await cardOf(other)).balanceMinor).toBe(700);
    await expectLedgerSound(t);
  });

  it('the card page sends its correction with a requestId of its own, once', async () => {
    const card = await fundedCard();
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    await signIn(page, baseUrl, { email, password: PASSWORD });
    await page.goto(`${baseUrl}/portal/cards?tokenId=${card}`);
    const form = page.locator('form[data-api$="/corrections"]');
    const id = await form.locator('input[name="requestId"]').inputValue();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await form.getByLabel('Betrag').fill('-1,50');
    await form.getByLabel('Grund').fill('Wechselgeld');
    await Promise.all([
      page.waitForEvent('load'),
      form.getByRole('button', { name: 'Guthaben korrigieren' }).click(),
    ]);
    expect((await cardOf(card)).balanceMinor).toBe(850);
    // The form sent again as it was (a retry of the same submit) books nothing more.
    const again = await correct(card, { amount: '-1.50', reason: 'Wechselgeld', requestId: id });
    expect(again.statusCode).toBe(200);
    expect((await cardOf(card)).balanceMinor).toBe(850);
    // The page after it has a new form, with a new requestId.
    expect(
      await page.locator('form[data-api$="/corrections"] input[name="requestId"]').inputValue(),
    ).not.toBe(id);
    await page.close();
  });
});
