import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basketCsv } from '../../src/portal/basket-csv.js';
import type { BasketListing } from '../../src/reports/basket-search.store.js';
import { localDayOf } from '../../src/reports/dashboard-period.store.js';
import { tokens } from '../cards/cards-support.js';
import { csvAnswer } from '../support/csv.js';
import {
  type TestApp,
  type Terminal,
  databases,
  merchantIdOf,
  setupTerminal,
  startApp,
} from '../support/harness.js';
import { type PortalSession, basket, newPortalSession, portalCall, portalPage } from './portal-support.js';

const HEADER =
  'day,time,trackingUnitId,terminal,outletId,outlet,billNumber,basketId,card,total,tillTotal,rewards,state,currency';

/** A basket as the list's API answers it. */
type Listed = BasketListing;

const major = (minor: number) => (minor / 100).toFixed(2);

/**
 * docs/decisions.md, "Finding baskets and customers": every basket the search finds, as CSV, with
 * the list's filters, its figures the list's; a bill number a till typed never read as a formula.
 */
describe.each(databases)('the baskets found, as CSV (%s)', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let owner: PortalSession;

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t, { timeZone: 'Europe/Berlin' });
    owner = await newPortalSession(t, term.serviceUserName, {
      email: `owner-${kind}@basket-csv.test`,
      password: 'a-long-enough-password',
    });
    expect((await tokens(term).register('card-csv')).statusCode).toBe(200);
    // Four baskets an hour apart: two granted, one with the card and a bill number a spreadsheet
    // would read as a formula, one left open; the last sends no TotalValue.
    const bills: [string, string | null, boolean, boolean][] = [
      ['k-1', 'R-1', true, false],
      ['k-2', '=SUM(A1:A9)', true, true],
      ['k-3', 'R-3, Tisch "7"', false, false],
      ['k-4', null, true, false],
    ];
    for (const [id, bill, grant, withCard] of bills) {
      t.clock.advance(3_600_000);
      const { TotalValue, ...noTotal } = basket(t.clock.nowMs());
      const up = await term.pos('POST', `/baskets/${id}`, {
        body: {
          ...(id === 'k-4' ? noTotal : { ...noTotal, TotalValue }),
          ...(bill ? { BillNumber: bill } : {}),
        },
        ...(withCard ? { query: { consumerIdentToken: 'card-csv' } } : {}),
      });
      expect(up.statusCode, up.body).toBe(200);
      if (grant) expect((await term.pos('POST', `/baskets/${id}/grant`, { sign: id })).statusCode).toBe(200);
    }
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  const csvOf = async (query: string) =>
    csvAnswer(await portalCall(t, owner, 'GET', `/baskets.csv${query}`), 'baskets.csv', HEADER);

  it('holds every basket the list finds, newest first, with the list’s figures', async () => {
    const { lines } = await csvOf('');
    const list = ((await portalCall(t, owner, 'GET', '/baskets?limit=100')).json() as { data: Listed[] })
      .data;
    expect(lines).toHaveLength(4);
    expect(lines).toEqual(
      list.map((b) => [
        localDayOf(Date.parse(b.timestamp), 'Europe/Berlin').day,
        b.timestamp,
        b.trackingUnitId,
        'Till 1',
        String(b.outletId),
        b.outletName ?? '',
        b.billNumber === '=SUM(A1:A9)' ? "'=SUM(A1:A9)" : (b.billNumber ?? ''),
        b.basketId,
        b.card ?? '',
        major(b.positionsTotalMinor),
        b.totalValueMinor === null ? '' : major(b.totalValueMinor),
        major(b.rewardMinor),
        b.state,
        'EUR',
      ]),
    );
    expect(lines.map((l) => [l[7], l[12]])).toEqual([
      ['k-4', 'granted'],
      ['k-3', 'open'],
      ['k-2', 'granted'],
      ['k-1', 'granted'],
    ]);
    // 3 x 3.20 + 2.80 = 12.40 each; k-4's till sent no TotalValue.
    expect(lines.map((l) => [l[9], l[10]])).toEqual([
      ['12.40', ''],
      ['12.40', '12.40'],
      ['12.40', '12.40'],
      ['12.40', '12.40'],
    ]);
  });

  it('a bill number is quoted where it holds a comma or quotes, and never read as a formula', async () => {
    const { body } = await csvOf('');
    expect(body).toContain(`,"R-3, Tisch ""7""",k-3,`);
    expect(body).toContain(`,'=SUM(A1:A9),k-2,card-csv,`);
  });

  it('takes the list’s filters, and refuses what the list refuses', async () => {
    expect((await csvOf('?state=open')).lines.map((l) => l[7])).toEqual(['k-3']);
    expect((await csvOf('?card=card-csv')).lines.map((l) => l[7])).toEqual(['k-2']);
    const bad = await portalCall(t, owner, 'GET', '/baskets.csv?state=lost');
    expect(bad.statusCode).toBe(400);
  });

  it('read a batch at a time, the CSV is the same as read at once', async () => {
    const { body } = await csvOf('');
    const filter = {
      merchantId: await merchantIdOf(t, term),
      fromMs: null,
      toMs: null,
      outletId: null,
      trackingUnitId: null,
      card: null,
      number: null,
      state: null,
      receiptMail: null,
    };
    for (const batch of [1, 3, 4]) {
      let text = '';
      for await (const part of basketCsv(t.database.db, filter, 'Europe/Berlin', batch)) text += part;
      expect(text, `batches of ${batch}`).toBe(body);
    }
  });

  it('the basket page links the CSV of what it found, with its filters', async () => {
    const page = await portalPage(t, owner, '/portal/baskets?state=granted');
    expect(page.body).toContain('href="/portal/api/v1/baskets.csv?state=granted"');
    expect(page.body).toContain('Every basket found as CSV');
  });
});
