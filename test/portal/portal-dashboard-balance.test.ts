import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredBalance } from '../../src/reports/dashboard-balance.store.js';
import { tokens } from '../cards/cards-support.js';
import {
  type CheckoutClient,
  expectLedgerSound,
  orderBody,
  setupCheckout,
} from '../checkout/checkout-support.js';
import { fitsWidth, openChromium, screenshotDir, serve, type TestBrowser } from '../support/browser.js';
import { csvAnswer } from '../support/csv.js';
import { type TestApp, databases, merchantIdOf, startApp } from '../support/harness.js';
import { type PortalSession, portalCall, portalSession, signIn } from './portal-support.js';

const OWNER = { email: 'owner@stored-balance.test', password: 'a-long-enough-password' };
const SHOTS = screenshotDir('docs/portal', '.test-cache/screenshots');
const DAY_MS = 86_400_000;

/**
 * docs/decisions.md, "The customers' stored balance on the dashboard": what the customers held at
 * the period's start and end and every kind of move between, adding up, equal to the balances the
 * ledger keeps; a card's balance moved to a customer changes no total; the merchant's, not an
 * outlet's.
 */
describe.each(databases)("the customers' stored balance on the dashboard (%s)", (kind) => {
  let t: TestApp;
  let c: CheckoutClient;
  let owner: PortalSession;
  let browser: TestBrowser;
  let baseUrl: string;
  const shots = kind === 'pglite';
  /** Three days of trade, Monday to Wednesday; Wednesday is "today". */
  const [monday, tuesday, wednesday] = ['2026-03-02', '2026-03-03', '2026-03-04'];
  const first = `bal-${kind}-1`;
  const second = `bal-${kind}-2`;

  const balanceOf = async (query: string) => {
    const res = await portalCall(t, owner, 'GET', `/dashboard${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { storedBalance: StoredBalance | null }).storedBalance;
  };

  beforeAll(async () => {
    t = await startApp(kind);
    t.clock.ms = Date.parse(`${monday}T09:00:00Z`);
    c = await setupCheckout(t);
    expect(
      (await t.admin('POST', `/merchants/${encodeURIComponent(c.serviceUserName)}/portalUsers`, OWNER))
        .statusCode,
    ).toBe(201);
    const till = tokens(c.term);
    // Monday: two cards loaded at the till (20.00 and 50.00), 3.50 of the first paid with it.
    for (const card of [first, second]) expect((await till.register(card)).statusCode).toBe(200);
    expect((await till.add(first, '20')).statusCode).toBe(200);
    expect((await till.add(second, '50')).statusCode).toBe(200);
    expect((await till.withdraw(first, '3.5')).statusCode).toBe(200);
    // Tuesday: a customer tops up 30.00 in the app, orders for 7.00 from it, 3.00 refunded; the
    // owner corrects the second card by -1.00.
    t.clock.ms += DAY_MS;
    const profile = await c.profile({ balance: 3_000 });
    const body = orderBody(c, profile.card, [['1001', 2]], {
      totalGross: 700,
      balance: { requestCharge: true },
    });
    expect((await c.order(body)).statusCode).toBe(200);
    const refund = await c.call('POST', `/api/v1/orders/${String(body.basketId)}/refund`, { amount: 300 });
    expect(refund.statusCode, refund.body).toBe(200);
    owner = await portalSession(t, OWNER.email, OWNER.password);
    const fix = await portalCall(t, owner, 'POST', `/cards/${second}/corrections`, {
      amount: '-1.00',
      reason: 'Till miscount',
    });
    expect(fix.statusCode, fix.body).toBe(200);
    // Wednesday: the first card's holder enrolled at the counter, the card's 16.50 moving to her
    // (no change to the total), and the second card loaded with 10.00.
    t.clock.ms += DAY_MS;
    owner = await portalSession(t, OWNER.email, OWNER.password);
    const enrol = await portalCall(t, owner, 'POST', '/profiles', {
      requestId: randomUUID(),
      fullName: 'Mia Roth',
      tokenId: first,
    });
    expect(enrol.statusCode, enrol.body).toBe(201);
    expect((await till.add(second, '10')).statusCode).toBe(200);
    baseUrl = await serve(t);
    browser = await openChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    if (t) await expectLedgerSound(t);
    await t?.close();
  });

  it('the three days: nothing held before, each kind of move, held at the end what the ledger keeps on the cards and profiles', async () => {
    const b = await balanceOf(`?from=${monday}&to=${wednesday}`);
    expect(b).toEqual({
      openingMinor: 0,
      tillLoadedMinor: 8_000,
      tillPaidMinor: 350,
      topUpsMinor: 3_000,
      ordersChargedMinor: 700,
      ordersRefundedMinor: 300,
      correctionsMinor: -100,
      closingMinor: 10_150,
      // Now: Ada's 26.00 and Mia's 16.50 on their profiles, 59.00 on the card without a customer.
      heldNow: { profilesMinor: 4_250, cardsMinor: 5_900 },
      days: [
        { day: monday, closingMinor: 6_650 },
        { day: tuesday, closingMinor: 9_150 },
        { day: wednesday, closingMinor: 10_150 },
      ],
    });
    // The ledger's own balances of the merchant's cards and profiles, now: the same 101.50.
    const kept = await t.database.db
      .selectFrom('ledger_accounts')
      .select((eb) => eb.fn.sum<string>('balance_minor').as('held'))
      .where('merchant_id', '=', await merchantIdOf(t, c.term))
      .where('kind', 'in', ['card', 'profile'])
      .executeTakeFirstOrThrow();
    expect(Number(kept.held)).toBe(b?.closingMinor);
    // The customers' part is what the customer list shows.
    const listed = (await portalCall(t, owner, 'GET', '/consumers?limit=100')).json() as {
      data: { balanceMinor: number }[];
    };
    expect(listed.data.reduce((sum, x) => sum + x.balanceMinor, 0)).toBe(b?.heldNow.profilesMinor);
  });

  it("a day alone starts with what the day before ended with; today's ends with what is held now", async () => {
    const tue = await balanceOf(`?from=${tuesday}&to=${tuesday}`);
    expect(tue).toMatchObject({
      openingMinor: 6_650,
      tillLoadedMinor: 0,
      tillPaidMinor: 0,
      topUpsMinor: 3_000,
      ordersChargedMinor: 700,
      ordersRefundedMinor: 300,
      correctionsMinor: -100,
      closingMinor: 9_150,
    });
    const today = await balanceOf('?preset=today');
    expect(today).toMatchObject({ openingMinor: 9_150, tillLoadedMinor: 1_000, closingMinor: 10_150 });
    // The enrolment moved the first card's 16.50 to its holder: a move between two customers.
    expect(today?.correctionsMinor).toBe(0);
    for (const b of [tue, today]) {
      expect(b?.closingMinor).toBe(
        (b?.openingMinor ?? 0) +
          (b?.tillLoadedMinor ?? 0) -
          (b?.tillPaidMinor ?? 0) +
          (b?.topUpsMinor ?? 0) -
          (b?.ordersChargedMinor ?? 0) +
          (b?.ordersRefundedMinor ?? 0) +
          (b?.correctionsMinor ?? 0),
      );
    }
  });

  it('day by day as CSV: each line adds up, each closing is the next opening, the same figures as the dashboard', async () => {
    const res = await portalCall(t, owner, 'GET', `/storedBalance.csv?from=${monday}&to=${wednesday}`);
    const { lines } = csvAnswer(
      res,
      `stored-balance-${monday}-${wednesday}.csv`,
      'day,opening,tillLoaded,tillPaid,topUps,ordersCharged,ordersRefunded,corrections,closing,currency',
    );
    expect(lines).toEqual([
      [monday, '0.00', '70.00', '3.50', '0.00', '0.00', '0.00', '0.00', '66.50', 'EUR'],
      [tuesday, '66.50', '0.00', '0.00', '30.00', '7.00', '3.00', '-1.00', '91.50', 'EUR'],
      [wednesday, '91.50', '10.00', '0.00', '0.00', '0.00', '0.00', '0.00', '101.50', 'EUR'],
    ]);
    const b = await balanceOf(`?from=${monday}&to=${wednesday}`);
    expect(lines.map((l) => Math.round(Number(l[8]) * 100))).toEqual(b?.days.map((d) => d.closingMinor));
    expect((await portalCall(t, owner, 'GET', '/storedBalance.csv?from=2026-02-30')).statusCode).toBe(400);
  });

  it("is the merchant's, not an outlet's: left out with an outlet chosen", async () => {
    const outlet = await t.database.db
      .selectFrom('outlets')
      .select('id')
      .where('merchant_id', '=', await merchantIdOf(t, c.term))
      .executeTakeFirstOrThrow();
    expect(await balanceOf(`?from=${monday}&to=${wednesday}&outletId=${outlet.id}`)).toBeNull();
  });

  it('on a phone, in German: the statement adds up to what is held, with a chart of each day', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    const page = await context.newPage();
    await signIn(page, baseUrl, OWNER);
    await portalCall(t, owner, 'PUT', '/me/lang', { lang: 'de' });
    await page.goto(`${baseUrl}/portal/dashboard?from=${monday}&to=${wednesday}`);
    const section = page.locator('#dashboard-balance');
    expect(await section.locator('h2').innerText()).toBe('Guthaben der Kunden');
    const rows = await section
      .locator('#balance-statement tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [
          tr.querySelector('th')?.textContent?.trim(),
          tr.querySelector('td')?.textContent?.trim(),
        ]),
      );
    expect(rows).toEqual([
      ['Bestand zu Beginn', '0,00\u00a0€'],
      ['An den Kassen aufgeladen', '+80,00\u00a0€'],
      ['An den Kassen damit bezahlt oder ausgezahlt', '-3,50\u00a0€'],
      ['Über Apps, Kiosk und Webshop aufgeladen', '+30,00\u00a0€'],
      ['Für Bestellungen aus Apps, Kiosk und Webshop bezahlt', '-7,00\u00a0€'],
      ['Durch Erstattungen solcher Bestellungen zurück', '+3,00\u00a0€'],
      ['Korrekturen im Portal und durch den Betreiber', '-1,00\u00a0€'],
      ['Bestand am Ende', '101,50\u00a0€'],
    ]);
    // The chart draws what was held at the end of each day, in euros on a money axis.
    await page.waitForFunction(() => {
      type Charts = {
        getChart(id: string): unknown;
        animator: { running(chart: unknown): boolean };
      };
      const charts = (globalThis as { Chart?: Charts }).Chart;
      const chart = charts?.getChart('chart-balance');
      return Boolean(chart) && !charts?.animator.running(chart);
    });
    expect(await page.evaluate("window.Chart.getChart('chart-balance').data.datasets[0].data")).toEqual([
      66.5, 91.5, 101.5,
    ]);
    expect(await section.locator('#balance-held-now').innerText()).toBe(
      'Jetzt: 42,50\u00a0€ auf Kundenkonten, 59,00\u00a0€ auf Karten ohne Kunden. Kunden nach Guthaben →',
    );
    expect(await section.getByRole('link', { name: 'Tag für Tag als CSV' }).getAttribute('href')).toBe(
      `/portal/api/v1/storedBalance.csv?from=${monday}&to=${wednesday}`,
    );
    await fitsWidth(page);
    if (shots) await section.screenshot({ path: `${SHOTS}/dashboard-balance-phone.png` });
    await portalCall(t, owner, 'PUT', '/me/lang', { lang: 'en' });
    await context.close();
  }, 60_000);
});
