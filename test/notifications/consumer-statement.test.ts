import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, localInstantMs } from '../../src/shared/time.js';
import { type TestApp, databases, setupTerminal, startApp } from '../support/harness.js';
import { tokens } from '../cards/cards-support.js';
import { type PurchaseHistory, purchaseHistory, signedIn } from './purchase-history.js';

/** The page's text: tags dropped, whitespace folded. */
function textOf(html: string): string {
  return html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
}

/** The rows of the balance movements' table: amount and balance after, as the page shows them. */
function movementRows(page: string): { amount: string; after: string }[] {
  const table = /<table class="movements">([\s\S]*?)<\/table>/.exec(page)?.[1] ?? '';
  return [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => {
    const cells = [...(m[1] ?? '').matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => textOf(c[1] ?? ''));
    const last = /^(\S+) Balance after: (\S+)/.exec(cells[2] ?? '');
    return { amount: last?.[1] ?? '', after: last?.[2] ?? '' };
  });
}

/** A link of the page by its text, with its entities decoded. */
function linkOf(page: string, text: string): string | null {
  const m = new RegExp(`<a class="button secondary" href="([^"]+)"\\s*>${text}</a`).exec(page);
  return m?.[1]?.replace(/&amp;/g, '&') ?? null;
}

const euro = (minor: number) => `${minor < 0 ? '-' : ''}€${(Math.abs(minor) / 100).toFixed(2)}`;

const HOUR = 3_600_000;

const shown = (l: { amount: number; after: number }) => ({ amount: euro(l.amount), after: euro(l.after) });

describe.each(databases)("the consumer's balance statement on /me, page by page, on %s", (kind) => {
  let t: TestApp;
  let h: PurchaseHistory;
  let cookie: string;
  /** The profile's transfers as the ledger holds them, newest first, with the running balance. */
  let ledger: { amount: number; after: number; atMs: number }[];

  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie } });

  beforeAll(async () => {
    t = await startApp(kind);
    // Six movements of several weeks (top-ups, a till payment, orders, a refund), then 24 top-ups.
    h = await purchaseHistory(t);
    for (let i = 1; i <= 24; i++) {
      t.clock.advance(5 * HOUR);
      const r = await h.shop.call('POST', `/api/v1/profiles/${h.card}/topUps`, {
        amount: 100 + i * 7,
        currency: 'EUR',
      });
      expect(r.statusCode, r.body).toBe(201);
    }
    cookie = await signedIn(t, h.email);
    const account = await t.database.db
      .selectFrom('profiles')
      .select('account_id')
      .where('id', '=', h.profileId)
      .executeTakeFirstOrThrow();
    const transfers = await t.database.db
      .selectFrom('ledger_transfers')
      .select(['amount_minor', 'credit_account_id', 'debit_account_id', 'created_at'])
      .where((eb) =>
        eb.or([
          eb('credit_account_id', '=', account.account_id),
          eb('debit_account_id', '=', account.account_id),
        ]),
      )
      .orderBy('id')
      .execute();
    let sum = 0;
    ledger = transfers
      .map((x) => {
        const amount = (x.credit_account_id === account.account_id ? 1 : -1) * Number(x.amount_minor);
        sum += amount;
        return { amount, after: sum, atMs: new Date(x.created_at).getTime() };
      })
      .reverse();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('every movement is on a page, newest first, each with the balance after it as the ledger sums it', async () => {
    expect(ledger.length).toBe(30);
    const first = await get('/me');
    expect(first.statusCode).toBe(200);
    const newest = movementRows(first.body);
    expect(newest.length).toBe(20);
    // The newest movement's balance after it is the balance the page shows above it.
    const balance = (await t.database.db
      .selectFrom('profiles as p')
      .innerJoin('ledger_accounts as a', 'a.id', 'p.account_id')
      .select('a.balance_minor')
      .where('p.id', '=', h.profileId)
      .executeTakeFirstOrThrow()) as { balance_minor: string | number };
    expect(ledger[0]?.after).toBe(Number(balance.balance_minor));
    expect(textOf(first.body)).toContain(`Balance ${euro(Number(balance.balance_minor))}`);
    expect(linkOf(first.body, 'Newest movements')).toBeNull();

    const older = linkOf(first.body, 'Older movements');
    expect(older).toMatch(/^\/me\?balanceCursor=[A-Za-z0-9_-]+#movements$/);
    const second = await get(older ?? '');
    expect(second.statusCode).toBe(200);
    const rest = movementRows(second.body);
    expect(rest.length).toBe(10);
    expect(linkOf(second.body, 'Older movements')).toBeNull();
    expect(linkOf(second.body, 'Newest movements')).toBe('/me#movements');
    // Every page together: the ledger's transfers, each amount and balance after as summed there.
    expect([...newest, ...rest]).toEqual(
      ledger.map((l) => ({ amount: euro(l.amount), after: euro(l.after) })),
    );
    // The oldest movement is the first top-up: the balance after it is the top-up.
    expect(rest.at(-1)).toEqual({ amount: '€30.00', after: '€30.00' });
  });

  it("each pager keeps the other's place: the purchases' page and the movements' page", async () => {
    const first = await get('/me?page=2');
    expect(first.statusCode).toBe(200);
    const older = linkOf(first.body, 'Older movements') ?? '';
    expect(older).toMatch(/^\/me\?page=2&balanceCursor=[A-Za-z0-9_-]+#movements$/);
    const second = await get(older);
    // The purchases' "Newer" link keeps the movements' page; the movements' "Newest" the purchases'.
    const cursor = new URLSearchParams(older.slice(4, older.indexOf('#'))).get('balanceCursor');
    expect(linkOf(second.body, 'Newer')).toBe(`/me?balanceCursor=${cursor ?? ''}#purchases`);
    expect(linkOf(second.body, 'Newest movements')).toBe('/me?page=2#movements');
    expect(movementRows(second.body).length).toBe(10);
  });

  it('a page link edited by hand shows no movements, with the link back to the newest; the page around them stands', async () => {
    const madeUp = [
      Buffer.from(JSON.stringify(['meBalance', 'x'])).toString('base64url'),
      Buffer.from(JSON.stringify(['portalBaskets', 1])).toString('base64url'),
      'not-a-cursor!',
    ];
    for (const cursor of madeUp) {
      const r = await get(`/me?balanceCursor=${encodeURIComponent(cursor)}`);
      expect(r.statusCode, cursor).toBe(200);
      expect(movementRows(r.body), cursor).toEqual([]);
      expect(textOf(r.body)).toContain('Balance movements No older movements.');
      expect(linkOf(r.body, 'Newest movements')).toBe('/me#movements');
      expect(linkOf(r.body, 'Older movements')).toBeNull();
      // The purchases are there as on the first page.
      expect(r.body).toContain('<table class="purchases">');
    }
    // A cursor longer than any this list gives out is refused by the page's schema.
    const long = await get(`/me?balanceCursor=${'a'.repeat(401)}`);
    expect(long.statusCode).toBe(400);
    expect(long.headers['content-type']).toContain('text/html');
  });

  it('"up to a day": both lists end at that day of the merchant\'s calendar, each balance after as in the whole list, every link keeping the day', async () => {
    // The day of the till payment, the fourth movement: in the middle of the purchases.
    const paid = ledger.at(-4);
    const day = new Date((paid?.atMs ?? 0) + HOUR).toISOString().slice(0, 10);
    const beforeMs = localInstantMs(addDays(day, 1), 0, 'Europe/Berlin');
    const expected = ledger.filter((l) => l.atMs < beforeMs);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(ledger.length);
    const r = await get(`/me?until=${day}`);
    expect(r.statusCode).toBe(200);
    expect(r.body).toContain(`name="until" value="${day}"`);
    expect(movementRows(r.body)).toEqual(expected.map(shown));
    expect(linkOf(r.body, 'Older movements')).toBeNull();
    // The purchases sold before the day's end, and no later one.
    const sold = await t.database.db
      .selectFrom('baskets')
      .select('timestamp_utc')
      .where('profile_id', '=', h.profileId)
      .where('granted_at', 'is not', null)
      .execute();
    const orders = await t.database.db
      .selectFrom('checkout_orders')
      .select('created_at')
      .where('profile_id', '=', h.profileId)
      .execute();
    const times = [...sold.map((b) => b.timestamp_utc), ...orders.map((o) => o.created_at)].map((x) =>
      new Date(x).getTime(),
    );
    const purchases = /<table class="purchases">([\s\S]*?)<\/table>/.exec(r.body)?.[1] ?? '';
    const rows = [...purchases.matchAll(/<tr data-kind/g)].length;
    expect(rows).toBe(times.filter((x) => x < beforeMs).length);
    expect(rows).toBeLessThan(times.length);

    // A day whose movements fill more than a page: each link keeps it, and the pages end where the day does.
    const late = ledger[3];
    const lateDay = new Date((late?.atMs ?? 0) + HOUR).toISOString().slice(0, 10);
    const lateBefore = localInstantMs(addDays(lateDay, 1), 0, 'Europe/Berlin');
    const first = await get(`/me?until=${lateDay}`);
    const older = linkOf(first.body, 'Older movements') ?? '';
    expect(older).toMatch(new RegExp(`^/me\\?balanceCursor=[A-Za-z0-9_-]+&until=${lateDay}#movements$`));
    const second = await get(older);
    expect(linkOf(second.body, 'Newest movements')).toBe(`/me?until=${lateDay}#movements`);
    expect([...movementRows(first.body), ...movementRows(second.body)]).toEqual(
      ledger.filter((l) => l.atMs < lateBefore).map(shown),
    );
  });

  it('"up to a day" that is no day of the calendar is left out: the whole lists', async () => {
    for (const until of ['2026-02-30', 'yesterday', '2026-13-01']) {
      const r = await get(`/me?until=${until}`);
      expect(r.statusCode, until).toBe(200);
      expect(movementRows(r.body).length, until).toBe(20);
      expect(r.body).toContain('name="until" value=""');
      expect(linkOf(r.body, 'Older movements'), until).toMatch(
        /^\/me\?balanceCursor=[A-Za-z0-9_-]+#movements$/,
      );
    }
  });
});

/**
 * docs/decisions.md, "A linked card's history": a customer card used at the till before it was
 * linked to the profile keeps those loads and payments in the consumer's statement on /me, each
 * with the balance after it, and the link moves nothing of their money.
 */
describe.each(databases)("a card's movements from before it was linked, on /me, on %s", (kind) => {
  let t: TestApp;
  afterAll(async () => {
    await t?.close();
  });

  it('the loads and payments of the card before the link are movements of the balance, the link none', async () => {
    t = await startApp(kind);
    const term = await setupTerminal(t);
    const card = 'LATER-LINKED-1';
    expect((await tokens(term).register(card)).statusCode).toBe(200);
    expect((await tokens(term).add(card, '15.00')).statusCode).toBe(200);
    expect((await tokens(term).withdraw(card, '4.80')).statusCode).toBe(200);
    const email = `later-${kind}@statement.test`;
    const made = await t.admin('POST', `/merchants/${term.serviceUserName}/profiles`, {
      fullName: 'Ada',
      email,
    });
    expect(made.statusCode, made.body).toBe(201);
    const id = (made.json() as { id: number }).id;
    expect((await t.admin('POST', `/profiles/${id}/tokens`, { tokenId: card })).statusCode).toBe(200);
    expect((await tokens(term).withdraw(card, '2.40')).statusCode).toBe(200);
    const cookie = await signedIn(t, email);
    const page = await t.app.inject({ method: 'GET', url: '/me', headers: { cookie } });
    expect(page.statusCode).toBe(200);
    expect(movementRows(page.body)).toEqual([
      { amount: '-€2.40', after: '€7.80' },
      { amount: '-€4.80', after: '€10.20' },
      { amount: '€15.00', after: '€15.00' },
    ]);
    expect(textOf(page.body)).toContain('Balance €7.80');
  });
});
