import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerCsv } from '../../src/portal/consumer-csv.js';
import type { ConsumerListing } from '../../src/reports/consumer-search.store.js';
import { localDayOf } from '../../src/reports/dashboard-period.store.js';
import { tokens } from '../cards/cards-support.js';
import { receiptBasket, uploadAndGrant } from '../notifications/support.js';
import { csvAnswer } from '../support/csv.js';
import {
  type TestApp,
  type Terminal,
  databases,
  merchantIdOf,
  setupTerminal,
  startApp,
} from '../support/harness.js';
import { type PortalSession, newPortalSession, portalCall, portalPage } from './portal-support.js';

const HEADER = 'profileId,name,email,language,balance,currency,points,cards,createdDay';
const DAY_MS = 86_400_000;

/** A customer as the list's API answers them. */
type Listed = ConsumerListing;

/**
 * docs/decisions.md, "All customers, page by page": every customer of the merchant, or those the
 * search finds, as CSV, the figures the list's and the customer's page's (the points held, expired
 * ones left out), a typed name never read as a formula, none of another merchant's.
 */
describe.each(databases)('the customers, as CSV (%s)', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let owner: PortalSession;
  const ids: Record<string, number> = {};

  /** A basket of 9.20 € (9 points) at the till's clock now, granted with the card. */
  const purchase = (card: string, n: number) =>
    uploadAndGrant(
      term,
      `csv-${kind}-${card}-${n}`,
      { consumerIdentToken: card },
      { ...receiptBasket(false), Timestamp: new Date(t.clock.nowMs()).toISOString() },
    );

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t, { timeZone: 'Europe/Berlin' });
    owner = await newPortalSession(t, term.serviceUserName, {
      email: `owner-${kind}@consumer-csv.test`,
      password: 'a-long-enough-password',
    });
    const scheme = await t.admin(
      'POST',
      `/merchants/${encodeURIComponent(term.serviceUserName)}/loyaltySchemes`,
      {
        name: 'Kaffeepunkte',
        earn: [{ per: 'amount', amount: 1, points: 1 }],
        reward: null,
        pointsExpireAfterDays: 30,
      },
    );
    expect(scheme.statusCode, scheme.body).toBe(201);
    const enrol = async (key: string, body: Record<string, unknown>) => {
      const res = await portalCall(t, owner, 'POST', '/profiles', { requestId: randomUUID(), ...body });
      expect(res.statusCode, res.body).toBe(201);
      ids[key] = (res.json() as { id: number }).id;
    };
    // A regular with her card, loaded at the till; a name a spreadsheet would read as a formula,
    // with a comma, without address or card; a name found by "muller" (accents read as plain).
    const card = `KARTE-${kind}-1`;
    expect((await tokens(term).register(card)).statusCode).toBe(200);
    expect((await tokens(term).add(card, '25.00')).statusCode).toBe(200);
    await enrol('lena', {
      fullName: 'Lena Vogt',
      email: `lena-${kind}@example.org`,
      language: 'de',
      tokenId: card,
    });
    await enrol('formula', { fullName: '=HYPERLINK("x"), Tisch 7' });
    await enrol('zoe', { fullName: 'Zoë Müller', email: `zoe-${kind}@example.org`, language: 'en' });
    // Another merchant's customer is in no CSV of this one.
    const other = await setupTerminal(t);
    const foreign = await t.admin(
      'POST',
      `/merchants/${encodeURIComponent(other.serviceUserName)}/profiles`,
      {
        fullName: 'Fremde Müller',
      },
    );
    expect(foreign.statusCode).toBe(201);
    // The regular buys twice, 20 days apart; 15 days later the first purchase's points, 35 days
    // old, have expired (the scheme keeps them 30 days).
    await purchase(card, 1);
    t.clock.advance(20 * DAY_MS);
    await purchase(card, 2);
    t.clock.advance(15 * DAY_MS);
    // The owner's session of a month ago has expired: the owner signs in again.
    owner = await newPortalSession(t, term.serviceUserName, {
      email: `owner-${kind}-later@consumer-csv.test`,
      password: 'a-long-enough-password',
    });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  const csvOf = async (query: string) =>
    csvAnswer(await portalCall(t, owner, 'GET', `/consumers.csv${query}`), 'customers.csv', HEADER);

  it("holds every one of the merchant's customers, by id, with the list's balance and cards and the page's points", async () => {
    const { lines } = await csvOf('');
    const list = ((await portalCall(t, owner, 'GET', '/consumers?limit=100')).json() as { data: Listed[] })
      .data;
    expect(lines.map((l) => Number(l[0]))).toEqual([ids.lena, ids.formula, ids.zoe]);
    expect(lines.map((l) => Number(l[0]))).toEqual(list.map((c) => c.profileId));
    for (const [line, listed] of lines.map((l, i) => [l, list[i]] as const)) {
      const page = (await portalCall(t, owner, 'GET', `/profiles/${listed?.profileId}`)).json() as {
        points: number;
        balanceMinor: number;
        language: string | null;
      };
      expect(line[4]).toBe(((listed?.balanceMinor ?? 0) / 100).toFixed(2));
      expect(Number(line[4]) * 100).toBe(page.balanceMinor);
      expect(line[5]).toBe('EUR');
      expect(Number(line[6])).toBe(page.points);
      expect(line[3]).toBe(page.language ?? '');
      expect(line[7]).toBe(listed?.cards.join(' '));
    }
    const made = await t.database.db
      .selectFrom('profiles')
      .select(['id', 'created_at'])
      .where('id', 'in', [ids.lena ?? 0])
      .executeTakeFirstOrThrow();
    expect(lines[0]).toEqual([
      String(ids.lena),
      'Lena Vogt',
      `lena-${kind}@example.org`,
      'de',
      // 25.00 loaded at the till; the two baskets were paid at the till, not from the balance.
      '25.00',
      'EUR',
      // 9 + 9 earned, the first 9 expired after 30 days.
      '9',
      `KARTE-${kind}-1`,
      localDayOf(new Date(made.created_at).getTime(), 'Europe/Berlin').day,
    ]);
  });

  it('a typed name is quoted where it holds a comma or quotes, and never read as a formula', async () => {
    const { body, lines } = await csvOf('');
    expect(body).toContain(`${ids.formula},"'=HYPERLINK(""x""), Tisch 7",,,0.00,EUR,0,,`);
    expect(lines[1]?.[1]).toBe(`'=HYPERLINK("x"), Tisch 7`);
  });

  it("takes the list's q, and refuses what the list refuses", async () => {
    expect((await csvOf('?q=muller')).lines.map((l) => [Number(l[0]), l[1]])).toEqual([
      [ids.zoe, 'Zoë Müller'],
    ]);
    expect((await csvOf('?q=nobody-has-this')).lines).toEqual([]);
    const bad = await portalCall(t, owner, 'GET', '/consumers.csv?q=a');
    expect(bad.statusCode).toBe(400);
  });

  it('read a batch at a time, the CSV is the same as read at once', async () => {
    const { body } = await csvOf('');
    const find = { merchantId: await merchantIdOf(t, term), text: null, nowMs: t.clock.nowMs() };
    for (const batch of [1, 2, 3]) {
      let text = '';
      for await (const part of consumerCsv(t.database.db, find, 'Europe/Berlin', batch)) text += part;
      expect(text, `batches of ${batch}`).toBe(body);
    }
  });

  it('the list of all customers and a search link the CSV of what they show', async () => {
    const all = await portalPage(t, owner, '/portal/cards?all=1');
    expect(all.body).toContain('href="/portal/api/v1/consumers.csv"');
    const found = await portalPage(t, owner, '/portal/cards?q=muller');
    expect(found.body).toContain('href="/portal/api/v1/consumers.csv?q=muller"');
  });

  it('a customer whose only card was released keeps the points on the profile: the page shows them as the CSV and the database hold them', async () => {
    // Collected on the card, moved to the profile when the card was linked at enrolment, the card
    // then lost and released at the till.
    const card = `KARTE-${kind}-2`;
    expect((await tokens(term).register(card)).statusCode).toBe(200);
    await purchase(card, 3);
    await purchase(card, 4);
    const res = await portalCall(t, owner, 'POST', '/profiles', {
      requestId: randomUUID(),
      fullName: 'Max Brandt',
      email: `max-${kind}@example.org`,
      tokenId: card,
    });
    expect(res.statusCode, res.body).toBe(201);
    const max = (res.json() as { id: number }).id;
    expect((await tokens(term).dispose(card)).json()).toMatchObject({ State: 'released' });
    const page = (await portalCall(t, owner, 'GET', `/profiles/${max}`)).json() as {
      points: number;
      cards: unknown[];
    };
    expect(page.cards).toEqual([]);
    expect(page.points).toBe(18);
    // Her points history keeps what moved to her when the card was linked; the card's own
    // movements left with it.
    const history = (await portalCall(t, owner, 'GET', `/profiles/${max}/pointsHistory`)).json() as {
      data: { kind: string; points: number; linkedCard: string | null }[];
    };
    // Two lots moved in one booking: one movement, naming the card they came from.
    expect(history.data.map((m) => [m.kind, m.points, m.linkedCard])).toEqual([['move_in', 18, card]]);
    const shown = (await portalPage(t, owner, `/portal/profiles/${max}`)).body;
    expect(shown).toContain('No card');
    expect(shown).toContain(`Moved from card ${card}`);
    const line = (await csvOf('?q=Brandt')).lines;
    expect(line.map((l) => [Number(l[0]), Number(l[6]), l[7]])).toEqual([[max, 18, '']]);
    const lots = await t.database.db
      .selectFrom('points_lots')
      .select((eb) => eb.fn.sum<string>('remaining').as('held'))
      .where('profile_id', '=', max)
      .executeTakeFirstOrThrow();
    expect(Number(lots.held)).toBe(18);
  });
});
