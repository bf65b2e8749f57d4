import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokens } from '../cards/cards-support.js';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';
import { openChromium, screenshotDir, serve, type TestBrowser } from '../support/browser.js';
import { basket, portalCall, portalSession, signIn } from './portal-support.js';

// The pictures of docs/portal.md (phone width) with PORTAL_SCREENSHOTS=1.
const SHOTS = screenshotDir('docs/portal', '.test-cache/portal');
const OWNER = { email: 'inhaberin@baeckerei-korn.test', password: 'sauerteig-2026-korn' };
const STAFF = { email: 'theke@baeckerei-korn.test', password: 'brezel-am-morgen-7' };
const NEWCOMER = { email: 'chef@eiscafe-neu.test', password: 'stracciatella-2026' };
const PHONE = { width: 390, height: 844 };

/** Words of the portal's own vocabulary that must never show untranslated in German pages. */
const ENGLISH_ENUMS = [
  'product',
  'bill',
  'quantity',
  'combination',
  'registered',
  'locked',
  'disposed',
  'earn',
  'spend',
  'refund',
  'charge',
  'correction',
  'granted',
  'returned',
  'open',
  'live',
  'scheduled',
  'ended',
  'paused',
  'active',
  'inactive',
  'owner',
  'staff',
  'customer',
  'gift',
];

interface PageFacts {
  scrollWidth: number;
  innerWidth: number;
  text: string;
  /** Elements sticking out of the viewport on the right, not inside a box that scrolls. */
  overflowing: string[];
  signOut: { left: number; right: number; visible: boolean } | null;
  nav: { href: string; left: number; right: number; visible: boolean }[];
}

/** What the test reads off a rendered page: widths, its visible text and the header's controls. */
async function factsOf(page: Page): Promise<PageFacts> {
  return page.evaluate(`(() => {
    const box = (el) => { const r = el.getBoundingClientRect(); return { left: r.left, right: r.right, visible: r.width > 0 && r.height > 0 }; };
    const scrolls = (el) => { for (let p = el.parentElement; p; p = p.parentElement) { const o = getComputedStyle(p).overflowX; if (o === 'auto' || o === 'scroll' || o === 'hidden') return true; } return false; };
    const overflowing = [];
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.right <= window.innerWidth + 1 || scrolls(el)) continue;
      overflowing.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ').join('.') : ''));
    }
    const out = document.querySelector('header.top .who button');
    return {
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      text: document.body.innerText,
      overflowing: overflowing.slice(0, 10),
      signOut: out ? box(out) : null,
      nav: [...document.querySelectorAll('nav.main a')].map((a) => ({ href: a.getAttribute('href'), ...box(a) })),
    };
  })()`);
}

// How the pages lay out at phone width and read in German is the browser's and the page templates'
// work, the same on either database; what the pages read is proven on both databases by the portal's
// API and page tests (test/portal/portal-api.test.ts, portal-browser.test.ts). So: the first database only.
describe.each(databases.slice(0, 1))('the merchant portal on a phone and in German (%s)', (kind) => {
  let t: TestApp;
  let browser: TestBrowser;
  let baseUrl: string;
  let till: Terminal;
  let campaignId = 0;
  const card = `K-${kind}-7`;
  const shots = kind === 'pglite';

  beforeAll(async () => {
    // A webhook to a local address may be registered (nothing is delivered: no order is placed).
    t = await startApp(kind, { webhookAllowPrivate: true });
    baseUrl = await serve(t);
    browser = await openChromium();
    till = await setupTerminal(t);
    // A second till that nobody has activated yet.
    await t.app.inject({
      method: 'GET',
      url: `/api/pos/v3/trackingUnits?serviceUserName=${encodeURIComponent(till.serviceUserName)}&outletId=${till.outletId}&instanceName=Kasse%202`,
      headers: { devkey: till.devKey, accept: 'application/json' },
    });
    const users = `/merchants/${encodeURIComponent(till.serviceUserName)}/portalUsers`;
    expect((await t.admin('POST', users, OWNER)).statusCode).toBe(201);
    expect((await t.admin('POST', users, { ...STAFF, role: 'staff' })).statusCode).toBe(201);
    const s = await portalSession(t, OWNER.email, OWNER.password);
    const created = await portalCall(t, s, 'POST', '/campaigns', {
      name: 'Kaffee -20 %',
      type: 'product',
      discount: { percent: 20 },
      products: [{ plu: '1001' }],
    });
    expect(created.statusCode).toBe(201);
    campaignId = (created.json() as { id: number }).id;
    // Points, so that the basket and the card show their points tables.
    const scheme = await t.admin(
      'POST',
      `/merchants/${encodeURIComponent(till.serviceUserName)}/loyaltySchemes`,
      {
        name: 'Kaffeepunkte',
        earn: [{ per: 'amount', amount: 1, points: 1 }],
        reward: null,
      },
    );
    expect(scheme.statusCode, scheme.body).toBe(201);
    // A card with a balance, a basket with it, granted; one basket left open.
    expect((await tokens(till).register(card)).statusCode).toBe(200);
    expect((await tokens(till).add(card, '14.10', 'T-1')).statusCode).toBe(200);
    const up = await till.pos('POST', '/baskets/R-1', {
      body: basket(t.clock.nowMs()),
      query: { consumerIdentToken: card },
    });
    expect(up.statusCode).toBe(200);
    expect((await till.pos('POST', '/baskets/R-1/grant', { sign: 'R-1' })).statusCode).toBe(200);
    expect((await till.pos('POST', '/baskets/R-2', { body: basket(t.clock.nowMs()) })).statusCode).toBe(200);
    // A basket whose till sent a TotalValue other than its positions' sum: its page marks the till's
    // figure under the total, in German the longest of the figures' texts.
    const differing = { ...basket(t.clock.nowMs()), TotalValue: 125.8 };
    expect((await till.pos('POST', '/baskets/R-3', { body: differing })).statusCode).toBe(200);
    expect((await till.pos('POST', '/baskets/R-3/grant', { sign: 'R-3' })).statusCode).toBe(200);
    // The card locked and unlocked again, each with who and why, and a one-time password issued:
    // the card's page lists them. An ordering app's client and a webhook with a real-length address:
    // the developers' page lists them.
    for (const [action, reason] of [
      ['lock', 'Vom Kunden als gestohlen gemeldet'],
      ['unlock', 'Karte wiedergefunden, Kunde legte Ausweis vor'],
    ]) {
      const done = await portalCall(t, s, 'POST', `/cards/${card}/${action}`, { reason });
      expect(done.statusCode, done.body).toBe(200);
    }
    const holder = await t.admin('POST', `/merchants/${encodeURIComponent(till.serviceUserName)}/profiles`, {
      fullName: 'Erika Mustermann',
    });
    expect(holder.statusCode, holder.body).toBe(201);
    const linked = await t.admin('POST', `/profiles/${(holder.json() as { id: number }).id}/tokens`, {
      tokenId: card,
    });
    expect(linked.statusCode, linked.body).toBe(200);
    const otp = await portalCall(t, s, 'POST', `/cards/${card}/otps`);
    expect(otp.statusCode, otp.body).toBe(201);
    const client = await portalCall(t, s, 'POST', '/checkoutClients', { name: 'Bestell-App Café Linde' });
    expect(client.statusCode, client.body).toBe(201);
    const hook = await portalCall(t, s, 'POST', '/webhooks', {
      url: 'http://127.0.0.1:9/schnittstellen/punchcard/bestellungen-cafe-linde/guthaben-buchungen',
      event: 'transaction.status.changed',
    });
    expect(hook.statusCode, hook.body).toBe(201);
    // A merchant who has just signed up: no till, no campaign, no basket yet.
    const fresh = { serviceUserName: `eiscafe-neu-${kind}`, displayName: 'Eiscafé Neu', currency: 'EUR' };
    expect((await t.admin('POST', '/merchants', { ...fresh, timeZone: 'Europe/Berlin' })).statusCode).toBe(
      201,
    );
    const newcomer = await t.admin('POST', `/merchants/${fresh.serviceUserName}/portalUsers`, NEWCOMER);
    expect(newcomer.statusCode).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** Every page of the portal a signed-in user can open, for the merchant with trade. */
  const pages = () => [
    '/portal/dashboard',
    '/portal/terminals',
    '/portal/campaigns',
    '/portal/campaigns/new',
    `/portal/campaigns/${campaignId}`,
    '/portal/loyaltySchemes/new',
    '/portal/baskets',
    `/portal/baskets/${till.trackingUnitId}/R-1`,
    `/portal/baskets/${till.trackingUnitId}/R-3`,
    '/portal/orders',
    '/portal/cards',
    `/portal/cards?tokenId=${card}`,
    '/portal/cards?q=niemand',
    '/portal/profiles/new',
    '/portal/catalog',
    '/portal/developers',
    '/portal/no-such-page',
  ];

  async function signedIn(who: { email: string; password: string }, size: { width: number; height: number }) {
    const context = await browser.newContext({ viewport: size });
    const page = await context.newPage();
    await signIn(page, baseUrl, who);
    return { context, page };
  }

  async function everyPageFits(context: BrowserContext, page: Page, paths: string[], tag: string) {
    for (const path of paths) {
      await page.goto(`${baseUrl}${path}`);
      const f = await factsOf(page);
      expect({ path, scrollWidth: f.scrollWidth, overflowing: f.overflowing }).toEqual({
        path,
        scrollWidth: PHONE.width,
        overflowing: [],
      });
      // Every table fills its box (its rows reach the box's edge, header shading and lines too),
      // a wide one scrolling inside it; a list stacked into cards by its body's rows (its header
      // is kept for screen readers only).
      const short = (await page.evaluate(
        `Array.from(document.querySelectorAll('main table')).filter((t) => { if (t.offsetParent === null || t.rows.length === 0) return false; const row = t.classList.contains('stack-on-phone') && t.tBodies[0]?.rows.length ? t.tBodies[0].rows[0] : t.rows[0]; return Math.round(row.getBoundingClientRect().width) < Math.round(t.parentElement.getBoundingClientRect().width); }).map((t) => t.id || t.rows[0].innerText.slice(0, 40))`,
      )) as string[];
      expect(short, `${path}: tables shorter than their box`).toEqual([]);
      // Every button and link of a table is on screen: none hidden behind a sideways scroll (a till's
      // deactivation, a campaign's page, a card found).
      const hidden = (await page.evaluate(
        `Array.from(document.querySelectorAll('main table button, main table a')).filter((b) => b.offsetParent !== null && b.getBoundingClientRect().right > window.innerWidth + 0.5).map((b) => b.textContent.trim().slice(0, 40))`,
      )) as string[];
      expect(hidden, `${path}: controls off screen`).toEqual([]);
      // Nothing runs out of a figure's card (a basket's total with the till's differing figure under
      // it): the card cuts off what sticks out, so the page-wide check above cannot see it.
      const cut = (await page.evaluate(
        `Array.from(document.querySelectorAll('main .kpi')).filter((k) => { const box = k.getBoundingClientRect(); return Array.from(k.querySelectorAll('*')).some((el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.right > box.right + 0.5; }); }).map((k) => k.innerText.replace(/\\s+/g, ' ').slice(0, 60))`,
      )) as string[];
      expect(cut, `${path}: figures cut off in their card`).toEqual([]);
      // No list is read by scrolling it sideways: each is a card per row on a phone.
      const scrolling = (await page.evaluate(
        `Array.from(document.querySelectorAll('main .table-wrap')).filter((w) => w.offsetParent !== null && w.scrollWidth > w.clientWidth + 1).map((w) => w.querySelector('table')?.id || w.innerText.slice(0, 40))`,
      )) as string[];
      expect(scrolling, `${path}: tables scrolling sideways`).toEqual([]);
      expect(f.signOut?.visible, `${path}: sign-out shown`).toBe(true);
      expect(f.signOut?.right ?? 999, `${path}: sign-out on screen`).toBeLessThanOrEqual(PHONE.width);
      for (const n of f.nav) {
        expect(n.visible && n.left >= 0 && n.right <= PHONE.width, `${path}: ${n.href} reachable`).toBe(true);
      }
      // An empty list says what to do next; it never reads as a bare "None." (nor German "Keine.").
      expect(f.text, `${path} says "None."`).not.toMatch(/(^|\n|· )(None|Keine)\.?(\n|$)/);
      if (shots) {
        const name = path.replace('/portal/', '').split(/[/?]/)[0] ?? 'page';
        if (['dashboard', 'baskets', 'cards', 'campaigns'].includes(name) && !path.includes('?')) {
          await page.screenshot({ path: `${SHOTS}/phone-${tag}-${name}.png`, fullPage: true });
        }
      }
    }
    await context.close();
  }

  it('every page fits a 390 px phone: no sideways scrolling, navigation and sign-out on screen', async () => {
    const { context, page } = await signedIn(OWNER, PHONE);
    await everyPageFits(context, page, pages(), 'en');
  }, 120_000);

  it('a new merchant\'s pages fit a phone and say what to do next instead of "None"', async () => {
    const { context, page } = await signedIn(NEWCOMER, PHONE);
    await page.goto(`${baseUrl}/portal/terminals`);
    // How to connect a till, not an empty table.
    expect(await page.locator('main').innerText()).toMatch(/POS vendor/);
    await page.goto(`${baseUrl}/portal/baskets`);
    expect(await page.locator('main').innerText()).toMatch(/No basket/);
    await page.goto(`${baseUrl}/portal/campaigns`);
    expect(await page.locator('main').innerText()).toMatch(/No campaign yet/);
    await everyPageFits(
      context,
      page,
      ['/portal/dashboard', '/portal/terminals', '/portal/campaigns', '/portal/baskets', '/portal/cards'],
      'new',
    );
  }, 120_000);

  it('German pages show no English word of the portal, no ISO date, and money as 3,20 €', async () => {
    const { context, page } = await signedIn(OWNER, { width: 1280, height: 900 });
    await Promise.all([page.waitForEvent('load'), page.locator('select[data-lang]').selectOption('de')]);
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    const found: string[] = [];
    for (const path of pages()) {
      await page.goto(`${baseUrl}${path}`);
      const text = await page.locator('body').innerText();
      for (const word of ENGLISH_ENUMS) {
        const m = new RegExp(`(^|[^\\p{L}@.-])${word}(?![\\p{L}@.])`, 'iu').exec(text);
        if (m) found.push(`${path}: "${word}" in "${text.slice(Math.max(0, m.index - 30), m.index + 30)}"`);
      }
      const iso = /\b\d{4}-\d{2}-\d{2}/.exec(text);
      if (iso) found.push(`${path}: ISO date ${iso[0]}`);
      const english = /\d(\.\d{2})? ?(EUR|€)|€ ?\d/.exec(text);
      if (english) found.push(`${path}: money "${english[0]}"`);
    }
    expect(found).toEqual([]);
    await page.goto(`${baseUrl}/portal/cards?tokenId=${card}`);
    expect(await page.locator('main').innerText()).toMatch(/14,10\s€/);
    await Promise.all([page.waitForEvent('load'), page.locator('select[data-lang]').selectOption('en')]);
    await context.close();
  }, 120_000);

  it('deactivating a till asks first, and only the owner may', async () => {
    const { context, page } = await signedIn(OWNER, PHONE);
    await page.goto(`${baseUrl}/portal/terminals`);
    const row = page.locator(`tr[data-terminal="${till.trackingUnitId}"]`);
    let asked = '';
    page.once('dialog', (dialog) => {
      asked = dialog.message();
      void dialog.dismiss();
    });
    await row.getByRole('button', { name: /Deactivate/ }).click();
    await expect.poll(() => asked).toMatch(/Till 1/);
    // Dismissed: the till is still active.
    await page.reload();
    expect(await page.locator(`tr[data-terminal="${till.trackingUnitId}"]`).innerText()).toMatch(/Active/);
    await context.close();

    // Staff see the tills and may activate a new one, but not stop one that is trading.
    const staff = await signedIn(STAFF, PHONE);
    await staff.page.goto(`${baseUrl}/portal/terminals`);
    const staffRow = staff.page.locator(`tr[data-terminal="${till.trackingUnitId}"]`);
    expect(await staffRow.getByRole('button', { name: /Deactivate/ }).count()).toBe(0);
    expect(await staffRow.innerText()).toMatch(/owner/i);
    await staff.context.close();
    const s = await portalSession(t, STAFF.email, STAFF.password);
    const refused = await portalCall(t, s, 'POST', `/terminals/${till.trackingUnitId}/deactivate`);
    expect(refused.statusCode).toBe(403);
    expect((refused.json() as { error: { code: string } }).error.code).toBe('role_forbidden');
  }, 60_000);
});
