import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokens } from '../cards/cards-support.js';
import { type CheckoutClient, expectLedgerSound, setupCheckout } from '../checkout/checkout-support.js';
import {
  fitsWidth,
  listFits,
  openChromium,
  screenshotDir,
  serve,
  type TestBrowser,
} from '../support/browser.js';
import { type TestApp, databases, startApp } from '../support/harness.js';
import { type PortalSession, portalCall, portalPage, portalSession, signIn } from './portal-support.js';

const OWNER = { email: 'owner@history.test', password: 'a-long-enough-password' };
const SHOTS = screenshotDir('docs/portal', '.test-cache/screenshots');

interface Movement {
  transactionId: string;
  kind: string;
  amountMinor: number;
  balanceAfterMinor: number;
}
interface PointsMovement {
  kind: string;
  points: number;
  basketId: string | null;
  linkedCard: string | null;
}
interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

/**
 * A regular's card over months: its balance history and its points movements, every one, page by
 * page (docs/decisions.md, "A card's whole history"), in the API and on the card's and the
 * customer's pages.
 */
describe.each(databases)("a card's whole history, page by page (%s)", (kind) => {
  let t: TestApp;
  let c: CheckoutClient;
  let owner: PortalSession;
  let browser: TestBrowser;
  let baseUrl: string;
  let profile: { id: number; card: string };
  let accountId = 0;

  beforeAll(async () => {
    t = await startApp(kind);
    c = await setupCheckout(t);
    const u = encodeURIComponent(c.serviceUserName);
    expect((await t.admin('POST', `/merchants/${u}/portalUsers`, OWNER)).statusCode).toBe(201);
    const scheme = {
      name: 'Coffee card',
      earn: [{ per: 'amount', amount: 1, points: 1 }],
      reward: { threshold: 10, type: 'product', products: [{ plu: '1001' }], discount: { percent: 100 } },
    };
    expect((await t.admin('POST', `/merchants/${u}/loyaltySchemes`, scheme)).statusCode).toBe(201);
    // 50.00 topped up by the app, then 23 loads and 23 payments at the till: 47 movements.
    profile = await c.profile({ balance: 5_000 });
    for (let i = 1; i <= 23; i += 1) {
      t.clock.ms += 3_600_000;
      expect((await tokens(c.term).add(profile.card, `${i}.25`)).statusCode).toBe(200);
      expect((await tokens(c.term).withdraw(profile.card, `${i}`)).statusCode).toBe(200);
    }
    // 26 granted baskets with the card: points earned on each, spent where the reward came up.
    for (let i = 1; i <= 26; i += 1) {
      t.clock.ms += 86_400_000;
      await visit(profile.card, `H-${i}`);
    }
    const account = await t.database.db
      .selectFrom('profiles')
      .select('account_id')
      .where('id', '=', profile.id)
      .executeTakeFirstOrThrow();
    accountId = Number(account.account_id);
    // Signed in after the weeks of trade: a session ends after days unused.
    owner = await portalSession(t, OWNER.email, OWNER.password);
    baseUrl = await serve(t);
    browser = await openChromium();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    if (t) await expectLedgerSound(t);
    await t?.close();
  });

  /** A granted basket of two coffees (7.00 €, 7 points; the reward comes up at 10) with the card, at the clock's time. */
  async function visit(card: string, id: string): Promise<void> {
    const up = await c.term.pos('POST', `/baskets/${id}`, {
      body: {
        Timestamp: new Date(t.clock.nowMs()).toISOString().replace('Z', '+00:00'),
        HasDiscounts: false,
        CurrencyISO: 'EUR',
        Positions: [{ PositionId: 1, ProductId: '1001', Unit: 0, Amount: 2, CurrentGrossPrice: 3.5 }],
      },
      query: { consumerIdentToken: card },
    });
    expect(up.statusCode, up.body).toBe(200);
    expect((await c.term.pos('POST', `/baskets/${id}/grant`, { sign: id })).statusCode).toBe(200);
  }

  /** When the points of a basket were booked. */
  async function pointsBookedAt(basketId: string): Promise<Date> {
    const row = await t.database.db
      .selectFrom('points_movements')
      .select('created_at')
      .where('basket_id', '=', basketId)
      .executeTakeFirstOrThrow();
    return row.created_at;
  }
  /** The day of an instant on the merchant's calendar (Europe/Berlin), YYYY-MM-DD. */
  const merchantDay = (at: Date) =>
    new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin' }).format(at);

  /**
   * The points movements of the customer and of their card, newest first, from the database's
   * rows: those one booking wrote of one kind (a row per lot) as one movement, their points summed.
   */
  async function recordedPoints() {
    const card = await t.database.db
      .selectFrom('cards')
      .select('id')
      .where('token_id', '=', profile.card)
      .executeTakeFirstOrThrow();
    const rows = await t.database.db
      .selectFrom('points_movements')
      .select(['kind', 'points', 'basket_id', 'return_id', 'link_card_id', 'created_at'])
      .where((eb) => eb.or([eb('card_id', '=', card.id), eb('profile_id', '=', profile.id)]))
      .where('kind', '<>', 'opening')
      .orderBy('id', 'desc')
      .execute();
    const movements = new Map<string, { kind: string; points: number; basket_id: string | null }>();
    for (const r of rows) {
      const key = JSON.stringify([r.kind, r.basket_id, r.return_id, r.link_card_id, r.created_at]);
      const m = movements.get(key) ?? { kind: r.kind, points: 0, basket_id: r.basket_id };
      m.points += Number(r.points);
      movements.set(key, m);
    }
    return { rows, movements: [...movements.values()] };
  }

  /** Every page of a list, following nextCursor. */
  async function everyPage<T>(path: string, limit: number): Promise<Page<T>[]> {
    const pages: Page<T>[] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor === null ? `limit=${limit}` : `limit=${limit}&cursor=${cursor}`;
      const res = await portalCall(t, owner, 'GET', `${path}${path.includes('?') ? '&' : '?'}${q}`);
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json() as Page<T>;
      pages.push(page);
      cursor = page.nextCursor;
      expect(page.hasMore).toBe(cursor !== null);
    } while (cursor !== null);
    return pages;
  }

  it('the balance history pages through every transfer of the account, each with the balance after it, as the ledger has them', async () => {
    const transfers = await t.database.db
      .selectFrom('ledger_transfers')
      .select(['transaction_id', 'amount_minor', 'credit_account_id'])
      .where((eb) => eb.or([eb('credit_account_id', '=', accountId), eb('debit_account_id', '=', accountId)]))
      .orderBy('id')
      .execute();
    expect(transfers).toHaveLength(47);
    let running = 0;
    const expected = transfers
      .map((x) => {
        const amount = (Number(x.credit_account_id) === accountId ? 1 : -1) * Number(x.amount_minor);
        running += amount;
        return { transactionId: x.transaction_id, amountMinor: amount, balanceAfterMinor: running };
      })
      .reverse();
    const balance = await t.database.db
      .selectFrom('ledger_accounts')
      .select('balance_minor')
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    expect(running).toBe(Number(balance.balance_minor));
    for (const path of [`/cards/${profile.card}/balanceHistory`, `/profiles/${profile.id}/balanceHistory`]) {
      const pages = await everyPage<Movement>(path, 20);
      expect(pages.map((p) => p.data.length)).toEqual([20, 20, 7]);
      const seen = pages
        .flatMap((p) => p.data)
        .map((m) => ({
          transactionId: m.transactionId,
          amountMinor: m.amountMinor,
          balanceAfterMinor: m.balanceAfterMinor,
        }));
      expect(seen).toEqual(expected);
    }
    // The card's own answer carries the newest of them (all 47: fewer than 100).
    const card = (await portalCall(t, owner, 'GET', `/cards/${profile.card}`)).json() as {
      balanceMinor: number;
      balanceHistory: Movement[];
    };
    expect(card.balanceHistory.map((m) => m.transactionId)).toEqual(expected.map((m) => m.transactionId));
    expect(card.balanceHistory[0]?.balanceAfterMinor).toBe(card.balanceMinor);
  });

  it('the points history pages through every movement of the card and its customer, newest first, as recorded', async () => {
    const { rows, movements: recorded } = await recordedPoints();
    expect(recorded.length).toBeGreaterThan(26);
    expect(recorded.some((m) => m.kind === 'spend')).toBe(true);
    // A redemption took points from more than one lot: its rows are one movement.
    expect(rows.length).toBeGreaterThan(recorded.length);
    const pages = await everyPage<PointsMovement>(`/cards/${profile.card}/pointsHistory`, 10);
    expect(pages.slice(0, -1).every((p) => p.data.length === 10)).toBe(true);
    expect(pages.flatMap((p) => p.data).map((m) => [m.kind, m.points, m.basketId])).toEqual(
      recorded.map((m) => [m.kind, m.points, m.basket_id]),
    );
  });

  it("the customer's points history: every movement of the customer and of the card they hold, newest first, as recorded and as the card's page lists them", async () => {
    const recorded = (await recordedPoints()).movements;
    const pages = await everyPage<PointsMovement>(`/profiles/${profile.id}/pointsHistory`, 7);
    expect(pages.length).toBeGreaterThan(3);
    const listed = pages.flatMap((p) => p.data);
    expect(listed.map((m) => [m.kind, m.points, m.basketId])).toEqual(
      recorded.map((m) => [m.kind, m.points, m.basket_id]),
    );
    // The customer holds this one card: the two histories are one.
    const cards = await everyPage<PointsMovement>(`/cards/${profile.card}/pointsHistory`, 100);
    expect(listed).toEqual(cards.flatMap((p) => p.data));
    // The customer's answer carries the newest 100 of them, and the points they add up to.
    const answer = (await portalCall(t, owner, 'GET', `/profiles/${profile.id}`)).json() as {
      points: number;
      pointsHistory: PointsMovement[];
    };
    expect(answer.pointsHistory).toEqual(listed.slice(0, 100));
    expect(answer.points).toBe(listed.reduce((sum, m) => sum + m.points, 0));
    // Cut at a day, and refused as the other histories are.
    const cut = new Date((await pointsBookedAt('H-4')).getTime() + 1).toISOString();
    const before = await everyPage<PointsMovement>(
      `/profiles/${profile.id}/pointsHistory?createdTo=${cut}`,
      100,
    );
    expect(new Set(before.flatMap((p) => p.data).map((m) => m.basketId))).toEqual(
      new Set(['H-1', 'H-2', 'H-3', 'H-4']),
    );
    const balance = (
      await portalCall(t, owner, 'GET', `/profiles/${profile.id}/balanceHistory?limit=5`)
    ).json() as Page<unknown>;
    const crossed = await portalCall(
      t,
      owner,
      'GET',
      `/profiles/${profile.id}/pointsHistory?cursor=${String(balance.nextCursor)}`,
    );
    expect(crossed.statusCode, crossed.body).toBe(400);
    expect((crossed.json() as { error: { code: string } }).error.code).toBe('invalid_cursor');
    const unknown = await portalCall(t, owner, 'GET', '/profiles/999999/pointsHistory');
    expect(unknown.statusCode).toBe(404);
    expect((unknown.json() as { error: { code: string } }).error.code).toBe('not_found');
  });

  it("a card used before its holder was enrolled: its earns and redemptions are in the customer's points history, the move of its lots to her is not", async () => {
    // Five visits with an anonymous card (7 points each, the reward's 10 redeemed on the way), then
    // its holder enrolled with it: every lot moves to her, the used-up ones with 0 points.
    const card = `ANON-${kind}`;
    expect((await tokens(c.term).register(card)).statusCode).toBe(200);
    for (let i = 1; i <= 5; i += 1) {
      t.clock.ms += 3_600_000;
      await visit(card, `A-${kind}-${i}`);
    }
    owner = await portalSession(t, OWNER.email, OWNER.password);
    const made = await portalCall(t, owner, 'POST', '/profiles', {
      requestId: randomUUID(),
      fullName: 'Nora Stein',
      tokenId: card,
    });
    expect(made.statusCode, made.body).toBe(201);
    const id = (made.json() as { id: number }).id;
    const nora = (await portalCall(t, owner, 'GET', `/profiles/${id}`)).json() as {
      points: number;
      pointsHistory: PointsMovement[];
    };
    const moves = await t.database.db
      .selectFrom('points_movements')
      .select(['kind', 'points'])
      .where('profile_id', '=', id)
      .where('kind', '=', 'move_in')
      .execute();
    expect(moves.some((m) => Number(m.points) === 0)).toBe(true);
    expect(moves.some((m) => Number(m.points) > 0)).toBe(true);
    const kinds = (h: PointsMovement[]) => [...new Set(h.map((m) => m.kind))].sort();
    const listed = (await everyPage<PointsMovement>(`/profiles/${id}/pointsHistory`, 100)).flatMap(
      (p) => p.data,
    );
    expect(kinds(listed)).toEqual(['earn', 'spend']);
    expect(listed.filter((m) => m.kind === 'earn')).toHaveLength(5);
    expect(listed.reduce((sum, m) => sum + m.points, 0)).toBe(nora.points);
    expect(nora.pointsHistory).toEqual(listed);
    // The card's page, now her card's, lists the same.
    const cards = (await everyPage<PointsMovement>(`/cards/${card}/pointsHistory`, 100)).flatMap(
      (p) => p.data,
    );
    expect(cards).toEqual(listed);

    // A second card of hers, used three times before it was linked (a lot used up by the reward),
    // then lost and released: its own movements leave with it; what moved to her stays, one
    // movement for the link's move of its lots (a used-up one among them, with 0 points).
    const second = `ANON2-${kind}`;
    expect((await tokens(c.term).register(second)).statusCode).toBe(200);
    for (let i = 1; i <= 3; i += 1) {
      t.clock.ms += 3_600_000;
      await visit(second, `A2-${kind}-${i}`);
    }
    const linked = await portalCall(t, owner, 'POST', `/profiles/${id}/cards`, { tokenId: second });
    expect(linked.statusCode, linked.body).toBe(200);
    expect((await tokens(c.term).dispose(second)).json()).toMatchObject({ State: 'released' });
    const fromSecond = await t.database.db
      .selectFrom('points_movements as m')
      .innerJoin('cards as k', 'k.id', 'm.link_card_id')
      .select(['m.points'])
      .where('m.profile_id', '=', id)
      .where('m.kind', '=', 'move_in')
      .where('k.token_id', '=', second)
      .orderBy('m.id', 'desc')
      .execute();
    expect(fromSecond.some((m) => Number(m.points) === 0)).toBe(true);
    const after = (await everyPage<PointsMovement>(`/profiles/${id}/pointsHistory`, 100)).flatMap(
      (p) => p.data,
    );
    // Its lots' moves, one booking: one movement of their sum.
    expect(after.filter((m) => m.kind === 'move_in').map((m) => [m.points, m.linkedCard])).toEqual([
      [fromSecond.reduce((sum, m) => sum + Number(m.points), 0), second],
    ]);
    expect(after.filter((m) => m.kind !== 'move_in')).toEqual(listed);
    const held = (await portalCall(t, owner, 'GET', `/profiles/${id}`)).json() as { points: number };
    expect(after.reduce((sum, m) => sum + m.points, 0)).toBe(held.points);
  });

  it('a cursor of another list, a made-up one, a limit out of bounds, an unknown card or customer and no session are refused', async () => {
    const points = (
      await portalCall(t, owner, 'GET', `/cards/${profile.card}/pointsHistory?limit=5`)
    ).json() as Page<unknown>;
    const forged = Buffer.from(JSON.stringify(['balanceHistory', 'x']), 'utf8').toString('base64url');
    for (const cursor of [String(points.nextCursor), forged, 'not!a!cursor']) {
      const res = await portalCall(
        t,
        owner,
        'GET',
        `/cards/${profile.card}/balanceHistory?cursor=${encodeURIComponent(cursor)}`,
      );
      expect(res.statusCode, res.body).toBe(400);
      expect((res.json() as { error: { code: string } }).error.code).toBe('invalid_cursor');
    }
    for (const limit of [0, 101]) {
      const res = await portalCall(t, owner, 'GET', `/profiles/${profile.id}/balanceHistory?limit=${limit}`);
      expect(res.statusCode, res.body).toBe(400);
    }
    const unknownCard = await portalCall(t, owner, 'GET', '/cards/NO-SUCH-CARD/pointsHistory');
    expect(unknownCard.statusCode).toBe(404);
    expect((unknownCard.json() as { error: { code: string } }).error.code).toBe('card_unknown');
    const unknownProfile = await portalCall(t, owner, 'GET', '/profiles/999999/balanceHistory');
    expect(unknownProfile.statusCode).toBe(404);
    const anonymous = await t.app.inject({
      method: 'GET',
      url: `/portal/api/v1/cards/${profile.card}/balanceHistory`,
    });
    expect(anonymous.statusCode).toBe(401);
  });

  it('the card page shows 20 movements of each history and links the older ones; an edited link shows none, with the way back', async () => {
    const first = await portalPage(t, owner, `/portal/cards?tokenId=${profile.card}`);
    expect(first.statusCode).toBe(200);
    const rows = (html: string, id: string) =>
      (html.split(`id="${id}"`)[1]?.split('</table>')[0]?.match(/<tr>/g) ?? []).length - 1;
    expect(rows(first.body, 'balance-history')).toBe(20);
    expect(rows(first.body, 'points-history')).toBe(20);
    // A movement booked by a basket opens the basket.
    expect(first.body).toMatch(/id="points-history"[\s\S]*href="\/portal\/baskets\/[^"]+\/H-26"/);
    const older = /href="(\/portal\/cards\?tokenId=[^"]*balanceCursor=[^"#]*)#balance-history-title"/.exec(
      first.body,
    );
    expect(older).not.toBeNull();
    const second = await portalPage(t, owner, String(older?.[1]).replaceAll('&amp;', '&'));
    expect(rows(second.body, 'balance-history')).toBe(20);
    const edited = await portalPage(t, owner, `/portal/cards?tokenId=${profile.card}&balanceCursor=AAAA`);
    expect(edited.statusCode).toBe(200);
    expect(edited.body).toContain('No older movements.');
    expect(edited.body).toContain(`href="/portal/cards?tokenId=${profile.card}#balance-history-title"`);
    const customer = await portalPage(t, owner, `/portal/profiles/${profile.id}`);
    expect(rows(customer.body, 'balance-history')).toBe(20);
    expect(customer.body).toContain(`/portal/profiles/${profile.id}?balanceCursor=`);
    expect(rows(customer.body, 'points-history')).toBe(20);
    expect(customer.body).toMatch(/id="points-history"[\s\S]*href="\/portal\/baskets\/[^"]+\/H-26"/);
    const olderPoints = new RegExp(
      `href="(/portal/profiles/${profile.id}\\?pointsCursor=[^"#]*)#points-history-title"`,
    ).exec(customer.body);
    expect(olderPoints).not.toBeNull();
    const secondPoints = await portalPage(t, owner, String(olderPoints?.[1]));
    expect(rows(secondPoints.body, 'points-history')).toBe(20);
    expect(secondPoints.body).not.toMatch(/id="points-history"[\s\S]*>H-26</);
  });

  it('the histories cut at a day: the API by createdTo, the pages by the day chosen, every balance as before', async () => {
    const when = await pointsBookedAt('H-5');
    const cut = new Date(when.getTime() + 1);
    const points = await everyPage<PointsMovement>(
      `/cards/${profile.card}/pointsHistory?createdTo=${cut.toISOString()}`,
      20,
    );
    const baskets = new Set(points.flatMap((p) => p.data).map((m) => m.basketId));
    expect([...baskets].sort()).toEqual(['H-1', 'H-2', 'H-3', 'H-4', 'H-5']);
    // Cut before the last movement, each balance after is the one the whole list gives.
    const whole = (await everyPage<Movement>(`/cards/${profile.card}/balanceHistory`, 100)).flatMap(
      (p) => p.data,
    );
    const last = await t.database.db
      .selectFrom('ledger_transfers')
      .select('created_at')
      .where('transaction_id', '=', whole[0]?.transactionId ?? '')
      .executeTakeFirstOrThrow();
    const before = (
      await everyPage<Movement>(
        `/cards/${profile.card}/balanceHistory?createdTo=${last.created_at.toISOString()}`,
        100,
      )
    ).flatMap((p) => p.data);
    expect(before.length).toBeGreaterThan(0);
    expect(before.length).toBeLessThan(whole.length);
    expect(before).toEqual(whole.filter((m) => before.some((b) => b.transactionId === m.transactionId)));
    // The card's page cut at the day of H-5, in the merchant's time zone: its points up to that day.
    const day = merchantDay(when);
    const page = await portalPage(t, owner, `/portal/cards?tokenId=${profile.card}&until=${day}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`name="until" value="${day}"`);
    const pointsTable = page.body.slice(page.body.indexOf('id="points-history"'));
    const shown = [...pointsTable.slice(0, pointsTable.indexOf('</table>')).matchAll(/>(H-[0-9]+)</g)].map(
      (m) => m[1],
    );
    expect(new Set(shown)).toEqual(new Set(['H-1', 'H-2', 'H-3', 'H-4', 'H-5']));
    // A day before the first movement: nothing yet, in either history.
    const none = await portalPage(t, owner, `/portal/cards?tokenId=${profile.card}&until=2000-01-01`);
    expect(none.body).not.toContain('id="balance-history"');
    expect(none.body).not.toContain('id="points-history"');
  });

  it("on a phone in German the owner pages back to the card's first top-up and its running balance", async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    await signIn(page, baseUrl, OWNER);
    await page.goto(`${baseUrl}/portal/cards?tokenId=${encodeURIComponent(profile.card)}`);
    await listFits(page, '#balance-history');
    await listFits(page, '#points-history');
    const older = page
      .getByRole('navigation', { name: 'Guthabenverlauf' })
      .getByRole('link', { name: /Ältere Bewegungen/ });
    for (let i = 0; i < 2; i += 1) {
      await Promise.all([page.waitForEvent('load'), older.click()]);
      await listFits(page, '#balance-history');
    }
    expect(await older.count()).toBe(0);
    const last = page.locator('#balance-history tbody tr').last();
    // The first movement: the app's top-up of 50,00 €, the balance after it 50,00 €.
    expect(await last.innerText()).toMatch(/50,00\s€[\s\S]*50,00\s€/);
    await fitsWidth(page);
    if (kind === 'pglite') {
      // The oldest movements and the way back, as the phone shows them.
      await page
        .getByRole('navigation', { name: 'Guthabenverlauf' })
        .evaluate((e) => e.scrollIntoView({ block: 'center' }));
      await page.screenshot({ path: `${SHOTS}/card-history-older-phone.png` });
    }
    await Promise.all([
      page.waitForEvent('load'),
      page
        .getByRole('link', { name: /Neueste Bewegungen/ })
        .first()
        .click(),
    ]);
    expect(await page.locator('#balance-history tbody tr').count()).toBe(20);
    // Cut at the day of the card's third basket: its points up to that day, the balance's too.
    const when = await pointsBookedAt('H-3');
    const day = merchantDay(when);
    const form = page.locator('#history-until');
    await form.getByLabel('Bewegungen bis').fill(day);
    await Promise.all([page.waitForEvent('load'), form.getByRole('button', { name: 'Anzeigen' }).click()]);
    expect(page.url()).toContain(`until=${day}`);
    const baskets = await page.locator('#points-history tbody tr a').allInnerTexts();
    expect(new Set(baskets)).toEqual(new Set(['H-1', 'H-2', 'H-3']));
    await listFits(page, '#points-history');
    await fitsWidth(page);
    if (kind === 'pglite') await form.screenshot({ path: `${SHOTS}/card-history-until-phone.png` });

    // The customer's page: her points history under the balance's, and its older movements.
    await page.goto(`${baseUrl}/portal/profiles/${profile.id}`);
    expect(await page.locator('#points-history-title').innerText()).toBe('Punkteverlauf');
    expect(await page.locator('#points-history tbody tr').count()).toBe(20);
    const olderPoints = page
      .getByRole('navigation', { name: 'Punkteverlauf' })
      .getByRole('link', { name: /Ältere Bewegungen/ });
    await Promise.all([page.waitForEvent('load'), olderPoints.click()]);
    expect(page.url()).toContain('pointsCursor=');
    expect(await page.locator('#points-history tbody tr').count()).toBeGreaterThan(0);
    await listFits(page, '#points-history');
    await fitsWidth(page);
    if (kind === 'pglite') {
      await page.locator('#points-history-title').evaluate((e) => e.scrollIntoView({ block: 'start' }));
      await page.screenshot({ path: `${SHOTS}/profile-points-history-phone.png` });
    }
    await page.close();
  });
});
