import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXED_REASONS } from '../../src/engine/reasons.js';
import { tokens } from '../cards/cards-support.js';
import { uploadAndGrant } from '../notifications/support.js';
import { type Terminal, type TestApp, databases, setupTerminal, startApp } from '../support/harness.js';
import { type TestBrowser, fitsWidth, openChromium, screenshotDir, serve } from '../support/browser.js';
import { field, signIn } from './portal-support.js';

const SHOTS = screenshotDir('docs/portal', '.test-cache/portal');
const OWNER = { email: 'inhaberin@cafe-probelauf.test', password: 'fruehstueck-2026', lang: 'de' };

/**
 * docs/decisions.md, "Why a campaign did not apply": the dry run says in the owner's words why each
 * campaign gave the basket nothing. A breakfast bundle never applies because the cappuccino
 * discount, processed before it, takes every cappuccino: the dry run names that campaign and says a
 * higher priority puts the bundle first; with it, the bundle applies and the cappuccino discount is
 * the one left out. Money as the owner writes it, the bill's rewards on the bill, the points in words.
 */
describe.each(databases.slice(0, 1))('the dry run in the owner’s words (%s)', (kind) => {
  let t: TestApp;
  let browser: TestBrowser;
  let baseUrl = '';
  let breakfastId = 0;
  let schemeId = 0;
  let merchantPath = '';
  let till: Terminal;
  const shots = kind === 'pglite';

  beforeAll(async () => {
    t = await startApp(kind);
    const term = await setupTerminal(t, { timeZone: 'Europe/Berlin' });
    const m = `/merchants/${encodeURIComponent(term.serviceUserName)}`;
    merchantPath = m;
    till = term;
    expect((await t.admin('POST', `${m}/portalUsers`, OWNER)).statusCode).toBe(201);
    const scheme = await t.admin('POST', `${m}/loyaltySchemes`, {
      name: 'Kaffeekarte',
      earn: [{ per: 'amount', amount: 1, points: 1 }],
      reward: { threshold: 10, type: 'bill', discount: { amount: 2 } },
    });
    expect(scheme.statusCode, scheme.body).toBe(201);
    schemeId = (scheme.json() as { id: number }).id;
    for (const body of [
      { name: 'Cappuccino -20 %', type: 'product', products: [{ plu: '1001' }], discount: { percent: 20 } },
      {
        name: 'Frühstück',
        type: 'combination',
        discount: { price: 4.9 },
        combination: [
          { plu: '1001', quantity: 1 },
          { plu: '2001', quantity: 1 },
        ],
      },
      { name: '1 € ab 30 €', type: 'bill', minTotal: 30, discount: { amount: 1 } },
      { name: 'Stammgast', type: 'bill', discount: { amount: 0.5 }, requiresConsumer: true },
    ]) {
      const res = await t.admin('POST', `${m}/campaigns`, body);
      expect(res.statusCode, res.body).toBe(201);
      if (body.name === 'Frühstück') breakfastId = (res.json() as { id: number }).id;
    }
    expect((await tokens(term).register('karte-1')).statusCode).toBe(200);
    // Twelve points on the card: enough for the scheme's 2 € reward.
    await uploadAndGrant(
      term,
      'vorher-1',
      {},
      {
        Timestamp: new Date(t.clock.ms - 86_400_000).toISOString().replace('Z', '+00:00'),
        HasDiscounts: true,
        ContextIdentifiers: ['karte-1'],
        Positions: [{ PositionId: 1, ProductId: '3001', Unit: 0, Amount: 1, CurrentGrossPrice: 12 }],
      },
    );
    t.clock.ms = Math.max(t.clock.ms, Date.now());
    baseUrl = await serve(t);
    browser = await openChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function tryBasket(page: Page): Promise<void> {
    const basket = {
      Timestamp: new Date(t.clock.ms).toISOString().replace('Z', '+00:00'),
      HasDiscounts: false,
      ContextIdentifiers: ['karte-1'],
      Positions: [
        { PositionId: 1, ProductId: '1001', Unit: 0, Amount: 1, CurrentGrossPrice: 3.2 },
        { PositionId: 2, ProductId: '2001', Unit: 0, Amount: 1, CurrentGrossPrice: 2.8 },
      ],
    };
    if ((await page.locator('#dry-advanced').getAttribute('open')) === null) {
      await page.locator('#dry-advanced summary').click();
    }
    await page.locator('#dry-basket').fill(JSON.stringify(basket));
    if (!(await page.locator('#dry-live').isChecked())) await page.locator('#dry-live').check();
    const answered = page.waitForResponse((r) => r.url().endsWith('/portal/api/v1/dryRun'));
    await page.getByRole('button', { name: 'Ausprobieren' }).click();
    expect((await answered).status()).toBe(200);
    await page.locator('#dry-result:visible').waitFor();
  }

  const why = (page: Page, code: string) => page.locator(`#dry-result tr[data-reason="${code}"]`);

  it('names the campaign that took the bundle’s articles and says a higher priority puts it first; then the bundle applies', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    const page = await context.newPage();
    await signIn(page, baseUrl, OWNER);
    await page.goto(`${baseUrl}/portal/campaigns/${breakfastId}`);
    // The bundle's figures are empty: the page points to the run over the last baskets to find out why.
    const whyLink = page.getByRole('link', { name: 'Warum? Unten an Ihren letzten Warenkörben prüfen.' });
    expect(await whyLink.getAttribute('href')).toBe('#dry-last-title');
    expect(await page.locator('#dry-last-title').innerText()).toBe('Mit Ihren letzten Warenkörben');
    await tryBasket(page);

    const result = page.locator('#dry-result');
    // 20 % of 3.20 on the cappuccino; the card's 2 € and the regular's 0.50 on the bill.
    expect(await result.locator('tbody[data-rewards] tr').allInnerTexts()).toEqual([
      expect.stringMatching(/^1\s+Cappuccino -20 %\s+0,64\s€$/),
      expect.stringMatching(/^Rechnung\s+Stammgast\s+0,50\s€$/),
      expect.stringMatching(/^Rechnung\s+Kaffeekarte\s+2,00\s€$/),
    ]);
    const left = why(page, 'no_units_left');
    expect(await left.innerText()).toMatch(
      /^Frühstück \(dieser Entwurf\)\s+—\s+ihre Artikel sind schon rabattiert durch „Cappuccino -20 %“\. Damit diese Aktion zuerst kommt, geben Sie ihr eine höhere Priorität\.$/,
    );
    expect(await why(page, 'minimum_total_not_reached').innerText()).toContain(
      'die Rechnung erreicht ihren Mindestbetrag nicht',
    );
    // 12 points before; 6.00 less the campaigns' 0.64 and 0.50 is 4.86, which earns 4; the reward
    // takes 10.
    expect(await result.locator('[data-loyalty]').innerText()).toMatch(
      /^Kaffeekarte: 12 → 6 Punkte, 2,00\s€ eingelöst$/,
    );
    const text = await result.innerText();
    for (const english of Object.values(FIXED_REASONS)) expect(text).not.toContain(english);
    expect(text).not.toMatch(/draft-\d|\d\.\d\d\b/);
    await fitsWidth(page);
    if (shots) await result.screenshot({ path: `${SHOTS}/campaign-dry-run-why-phone.png` });

    // The owner gives the bundle a higher priority: it comes first, and the cappuccino discount is
    // the one left without a free cappuccino, named after the draft.
    await field(page, 'Priorität').fill('10');
    await tryBasket(page);
    expect(await why(page, 'applied').allInnerTexts()).toContainEqual(
      expect.stringMatching(/^Frühstück \(dieser Entwurf\)\s+✔ 1×\s+angewendet$/),
    );
    expect(await why(page, 'no_units_left').innerText()).toMatch(
      /^Cappuccino -20 %\s+—\s+ihre Artikel sind schon rabattiert durch „Frühstück \(dieser Entwurf\)“\./,
    );
    // 3.20 + 2.80 for 4.90: 1.10, split by the value each gave (0.59 and 0.51).
    expect(await result.locator('tbody[data-rewards] tr').allInnerTexts()).toContainEqual(
      expect.stringMatching(/^1\s+Frühstück\s+0,59\s€$/),
    );
    await context.close();
  }, 120_000);

  it('a campaign in a stacking group kept off by the cappuccino discount is told its setting decides, not its priority', async () => {
    const happyHour = await t.admin('POST', `${merchantPath}/campaigns`, {
      name: 'Happy Hour -10 %',
      type: 'product',
      products: [{ plu: '1001' }],
      discount: { percent: 10 },
      stacking: { mode: 'group', group: 'Nachmittag' },
    });
    expect(happyHour.statusCode, happyHour.body).toBe(201);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    const page = await context.newPage();
    await signIn(page, baseUrl, OWNER);
    await page.goto(`${baseUrl}/portal/campaigns/${breakfastId}`);
    await tryBasket(page);
    // Stacked campaigns come after the others whatever their priority; a group adds only to its
    // own group, so the cappuccino's unset discount keeps it off.
    expect(await why(page, 'no_units_left').allInnerTexts()).toContainEqual(
      expect.stringMatching(
        /^Happy Hour -10 % · Stapeln: stapelt in Gruppe Nachmittag\s+—\s+ihre Artikel tragen schon „Cappuccino -20 %“, womit sie nicht stapelt\. Worauf sie aufsetzt, entscheidet ihre Stapel-Einstellung, nicht ihre Priorität\.$/,
      ),
    );
    await fitsWidth(page);
    await context.close();
  }, 120_000);

  it('tried on the last baskets: in how many the bundle applies, why not in the others, and with a higher priority what it gives', async () => {
    // Five more baskets over the last days: three breakfasts (one with the card), two cappuccinos.
    const hour = 3_600_000;
    const sold = [
      ['fr-1', 50, ['1001', '2001'], ['karte-1']],
      ['fr-2', 30, ['1001', '2001'], []],
      ['fr-3', 26, ['1001'], []],
      ['fr-4', 5, ['1001', '2001'], []],
      ['fr-5', 2, ['1001'], []],
    ] as const;
    for (const [basketId, hoursAgo, plus, cards] of sold) {
      const res = await till.pos('POST', `/baskets/${basketId}`, {
        body: {
          Timestamp: new Date(t.clock.ms - hoursAgo * hour).toISOString().replace('Z', '+00:00'),
          HasDiscounts: false,
          ContextIdentifiers: [...cards],
          Positions: plus.map((plu, i) => ({
            PositionId: i + 1,
            ProductId: plu,
            Unit: 0,
            Amount: 1,
            CurrentGrossPrice: plu === '1001' ? 3.2 : 2.8,
          })),
        },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    const page = await context.newPage();
    await signIn(page, baseUrl, OWNER);
    await page.goto(`${baseUrl}/portal/campaigns/${breakfastId}`);
    const result = page.locator('#dry-last-result');
    const tryRecent = async () => {
      const answered = page.waitForResponse((r) => r.url().endsWith('/portal/api/v1/dryRun/recent'));
      await page.getByRole('button', { name: 'Mit den letzten 50 Warenkörben prüfen' }).click();
      expect((await answered).status()).toBe(200);
      await result.locator('[data-summary]:not(:empty)').waitFor();
    };
    await tryRecent();
    // Six baskets: the five and the card's earlier one (marked discounted by the till, no article of the bundle).
    expect(await result.locator('[data-summary]').innerText()).toBe('Gilt in 0 von 6 Warenkörben.');
    expect(await result.locator('[data-reasons] li').allInnerTexts()).toEqual([
      '5 × ihre Artikel sind schon rabattiert durch „Cappuccino -20 %“. Damit diese Aktion zuerst kommt, geben Sie ihr eine höhere Priorität. (zum Beispiel Warenkorb fr-5)',
      '1 × kein Artikel des Warenkorbs gehört zu ihren Artikeln (zum Beispiel Warenkorb vorher-1)',
    ]);
    // 0.64 on each of five cappuccinos; the regular's 0.50 on the breakfast with the card.
    expect(await result.locator('tbody[data-others] tr').allInnerTexts()).toEqual([
      expect.stringMatching(/^Cappuccino -20 %\s+5\s+3,20\s€$/),
      expect.stringMatching(/^Stammgast\s+1\s+0,50\s€$/),
    ]);
    await fitsWidth(page);
    if (shots) await result.screenshot({ path: `${SHOTS}/campaign-dry-run-recent-phone.png` });
    // The example opens that basket's page: the cappuccino of two hours ago, not granted yet.
    await result.getByRole('link', { name: '(zum Beispiel Warenkorb fr-5)' }).click();
    await page.waitForURL(/\/portal\/baskets\/[^/]+\/fr-5$/);
    expect(await page.locator('main').innerText()).toMatch(/Warenkorb-ID\s+fr-5[\s\S]+\b1001\b/);
    // Not granted: no reward booked yet, and the page names what its till was offered.
    expect(await page.locator('#basket-offered').innerText()).toBe(
      '„Cappuccino -20 %“ (noch nicht gewährt: die Gewährung bucht, was diese Aktionen dann geben)',
    );
    await page.goBack();

    // A higher priority in the form: the bundle takes the three breakfasts (1.10 each), the
    // cappuccino discount keeps the two cappuccinos alone.
    await field(page, 'Priorität').fill('10');
    await tryRecent();
    await expect
      .poll(() => result.locator('[data-summary]').innerText())
      .toMatch(/^Gilt in 3 von 6 Warenkörben, Rabatt zusammen 3,30\s€\.$/);
    expect(await result.locator('tbody[data-others] tr').allInnerTexts()).toContainEqual(
      expect.stringMatching(/^Cappuccino -20 %\s+2\s+1,28\s€$/),
    );

    // The coffee card's page: the points it would earn the customers of those baskets.
    await page.goto(`${baseUrl}/portal/loyaltySchemes/${schemeId}`);
    await tryRecent();
    // The card's two baskets: the 12.00 marked discounted by the till earns 12; the breakfast's
    // 4.86 after the campaigns earns 4. Nothing about campaigns on a scheme's page.
    expect(await result.locator('[data-summary]').innerText()).toBe(
      '2 der 6 Warenkörbe nannten einen Kunden; in 2 davon brächte es 16 Punkte.',
    );
    expect(await result.locator('[data-others-wrap]').isHidden()).toBe(true);
    await fitsWidth(page);

    // A basket whose card, named in the till's query, is locked since cannot be tried again as it
    // was sent: the answer says how many, instead of guessing.
    expect((await tokens(till).register('karte-9')).statusCode).toBe(200);
    const locked = await till.pos('POST', '/baskets/fr-6', {
      query: { consumerIdentToken: 'karte-9' },
      body: {
        Timestamp: new Date(t.clock.ms - hour).toISOString().replace('Z', '+00:00'),
        HasDiscounts: false,
        Positions: [{ PositionId: 1, ProductId: '2001', Unit: 0, Amount: 1, CurrentGrossPrice: 2.8 }],
      },
    });
    expect(locked.statusCode, locked.body).toBe(200);
    expect((await tokens(till).lock('karte-9')).statusCode).toBe(200);
    await tryRecent();
    await expect
      .poll(() => result.locator('[data-skipped]').innerText())
      .toBe(
        'Warenkörbe, die sich nicht erneut prüfen ließen (ihre Kasse entfernt oder eine genannte Karte gesperrt): 1.',
      );
    expect(await result.locator('[data-summary]').innerText()).toBe(
      '2 der 6 Warenkörbe nannten einen Kunden; in 2 davon brächte es 16 Punkte.',
    );
    await context.close();
  }, 120_000);
  it('on a new campaign, a refused draft is shown as the dry run shows it: the field marked, the reason in the owner’s words', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    const page = await context.newPage();
    await signIn(page, baseUrl, OWNER);
    await page.goto(`${baseUrl}/portal/campaigns/new`);
    const refused = page.waitForResponse((r) => r.url().endsWith('/portal/api/v1/dryRun/recent'));
    await page.getByRole('button', { name: 'Mit den letzten 50 Warenkörben prüfen' }).click();
    expect((await refused).status()).toBe(400);
    await expect
      .poll(() => page.locator('#dry-last .form-error').innerText())
      .toBe('Nicht ausprobiert: bitte das markierte Feld korrigieren.');
    expect(await page.locator('.field-error').allInnerTexts()).toEqual([
      expect.stringMatching(/^Geben Sie der Aktion einen Namen/),
    ]);
    expect(await page.locator('#dry-last-result').isHidden()).toBe(true);
    await context.close();
  }, 120_000);
  it('the campaigns list counts each campaign’s granted baskets of 30 days; a live one with none links to why', async () => {
    // The terrace's cappuccino alone, granted: the cappuccino discount's first basket.
    const grant = await till.pos('POST', '/baskets/fr-5/grant', {
      sign: 'fr-5',
      query: { redeemedInPos: 'true' },
    });
    expect(grant.statusCode, grant.body).toBe(200);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    const page = await context.newPage();
    await signIn(page, baseUrl, OWNER);
    await page.goto(`${baseUrl}/portal/campaigns`);
    const cell = (name: string) =>
      page
        .locator('#campaigns-list tbody tr', { hasText: name })
        .locator('td[data-label="Einkäufe (30 Tage)"]');
    expect((await cell('Cappuccino -20 %').innerText()).trim()).toBe('1');
    expect((await cell('Frühstück').innerText()).trim()).toBe('0 · warum?');
    await cell('Frühstück').getByRole('link', { name: 'warum?' }).click();
    await page.waitForURL(`${baseUrl}/portal/campaigns/${breakfastId}#dry-last-title`);
    expect(await page.locator('#dry-last-title').innerText()).toBe('Mit Ihren letzten Warenkörben');
    await fitsWidth(page);
    await context.close();
  }, 120_000);
});
