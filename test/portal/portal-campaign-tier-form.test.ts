import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { databases } from '../support/harness.js';
import { fitsWidth, screenshotDir } from '../support/browser.js';
import { portalBrowserApp } from './portal-browser-app.js';
import { basket, field, signIn } from './portal-support.js';
import { tierScheme } from '../loyalty/tier-scheme.js';

/**
 * A campaign limited to status tiers from the portal's form (docs/decisions.md, "Status tiers"): a
 * scheme with tiers, then its tiers ticked; the API's refusals beside the field; no scheme with
 * tiers: a hint; the dry run with a tier chosen for the stand-in customer.
 */

const SHOTS = screenshotDir('docs/portal', '.test-cache/portal');
/** Screenshots to look at, beside those of the guide. */
const LOOK = screenshotDir('.test-cache/portal', '.test-cache/portal');
const OWNER = { email: 'owner@tier-form.test', password: 'tier-form-2026' };

const tierNames = (page: Page): Locator =>
  page.locator('fieldset[data-path="tiers.names"]').filter({ visible: true });

async function save(page: Page): Promise<void> {
  await Promise.all([
    page.waitForResponse((r) => /\/portal\/api\/v1\/campaigns/.test(r.url()) && r.status() < 300),
    page.waitForEvent('framenavigated'),
    page.getByRole('button', { name: /^(Save|Speichern)$/ }).click(),
  ]);
  await page.waitForLoadState('load');
}

/** The dry run of a basket of cappuccinos and a croissant: the "why" row of the campaign. */
async function dryRunWhy(page: Page, campaign: string): Promise<string> {
  if ((await page.locator('#dry-advanced').getAttribute('open')) === null) {
    await page.locator('#dry-advanced summary').click();
  }
  await page.locator('#dry-basket').fill(JSON.stringify(basket(Date.now())));
  const answered = page.waitForResponse((r) => r.url().endsWith('/portal/api/v1/dryRun'));
  await page.getByRole('button', { name: 'Try it' }).click();
  expect((await answered).status()).toBe(200);
  await page.locator('#dry-result:visible').waitFor();
  return page.locator('#dry-result tbody[data-why] tr', { hasText: campaign }).innerText();
}

describe.each(databases)('a campaign limited to status tiers in the portal form (%s)', (kind) => {
  const app = portalBrowserApp(kind, OWNER);
  const shots = kind === 'pglite';
  const merchant = () => `/merchants/${encodeURIComponent(app.till.serviceUserName)}`;

  it('no scheme with tiers: a hint; an owner limits a campaign to Gold, the dry run applies it for Gold only, a renamed tier is refused beside the field, and everyone clears the limit', async () => {
    const context = await app.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, app.baseUrl, OWNER);
    // A scheme without tiers only: not offered; the form says why there is nothing to choose.
    const stamps = await app.t.admin('POST', `${merchant()}/loyaltySchemes`, {
      name: 'Stamps',
      earn: [{ per: 'amount', amount: 1, points: 1 }],
    });
    expect(stamps.statusCode, stamps.body).toBe(201);
    await page.goto(`${app.baseUrl}/portal/campaigns/new`);
    expect(await page.locator('[data-tier-hint]').innerText()).toContain(
      'None of your loyalty schemes has status tiers',
    );
    expect(await field(page, 'Only for status tiers').count()).toBe(0);
    expect(await page.locator('[data-tier-scheme]').count()).toBe(0);
    if (shots) {
      await page.locator('[data-tier-hint]').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${LOOK}/tier-limit-hint-en.png` });
    }

    const created = await app.t.admin('POST', `${merchant()}/loyaltySchemes`, tierScheme());
    const schemeId = (created.json() as { id: number }).id;
    await page.reload();
    expect(await page.locator('[data-tier-hint]').count()).toBe(0);
    const choice = field(page, 'Only for status tiers');
    expect(await choice.locator('option').allInnerTexts()).toEqual(['everyone (no limit)', 'Coffee card']);
    await field(page, 'Name').fill('Gold coffee');
    await field(page, 'Type').selectOption('bill');
    await field(page, 'Discount').selectOption('amount');
    await field(page, 'Discount value').fill('1');
    await choice.selectOption(String(schemeId));
    // A scheme and no tier ticked: refused beside the tiers, in the owner's words.
    await page.getByRole('button', { name: 'Save' }).click();
    const error = tierNames(page).locator('.field-error');
    await expect.poll(() => error.innerText()).toContain('Tick at least one tier of the scheme');
    expect(page.url()).toMatch(/\/new$/);
    await field(tierNames(page), 'Gold').check();
    expect(JSON.parse(await page.locator('#rule-definition').inputValue())).toMatchObject({
      tiers: { schemeId, names: ['Gold'] },
    });
    await Promise.all([
      page.waitForURL(/\/portal\/campaigns\/[0-9]+$/),
      page.getByRole('button', { name: 'Save' }).click(),
    ]);
    const id = Number(page.url().split('/').pop());
    const read = async () => (await app.t.admin('GET', `/campaigns/${id}`)).json() as Record<string, unknown>;
    expect((await read()).tiers).toEqual({ schemeId, names: ['Gold'] });
    expect(await page.locator('[data-tier-limit]').innerText()).toContain(
      'Only for customers whose status tier in “Coffee card” is Gold.',
    );
    expect(await field(page, 'Only for status tiers').inputValue()).toBe(String(schemeId));
    expect(await field(tierNames(page), 'Gold').isChecked()).toBe(true);
    expect(await field(tierNames(page), 'Silver').isChecked()).toBe(false);
    if (shots) {
      await field(page, 'Only for status tiers').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${LOOK}/tier-limit-form-en.png` });
    }

    // The dry run: no tier chosen, "only for Gold"; Silver, the same; Gold, applied.
    expect(await dryRunWhy(page, 'Gold coffee')).toContain('only for customers in status tier Gold');
    const picker = page.locator('#dry-run').getByLabel('Coffee card', { exact: true });
    expect(await picker.locator('option').allInnerTexts()).toEqual(['no tier', 'Silver', 'Gold']);
    await picker.selectOption('Silver');
    // A tier is one of the live schemes': the live campaigns and schemes are included with it.
    expect(await page.getByLabel('Include live campaigns').isChecked()).toBe(true);
    expect(await page.getByLabel('Include live campaigns').isDisabled()).toBe(true);
    expect(await dryRunWhy(page, 'Gold coffee')).toContain('only for customers in status tier Gold');
    await picker.selectOption('Gold');
    expect(await dryRunWhy(page, 'Gold coffee')).toMatch(/✔ 1×/);
    expect(await page.locator('#dry-result tbody[data-rewards]').innerText()).toContain('Gold coffee');
    if (shots) {
      await page.locator('#dry-result').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${LOOK}/tier-limit-dry-run.png` });
      await page.locator('#dry-run').screenshot({ path: `${SHOTS}/campaign-dry-run-tier.png` });
    }
    await picker.selectOption('');
    expect(await page.getByLabel('Include live campaigns').isDisabled()).toBe(false);
    expect(await page.getByLabel('Include live campaigns').isChecked()).toBe(false);

    // Gold renamed in the scheme: the form shows the stored name marked, and saving it is refused
    // beside the tiers until the new name is ticked instead.
    const renamed = tierScheme({
      tiers: [
        { name: 'Silver', threshold: 100, multiplier: 1.5 },
        { name: 'Gold Plus', threshold: 300, multiplier: 2 },
      ],
    });
    const put = await app.t.admin('PUT', `${merchant()}/loyaltySchemes/${schemeId}`, renamed);
    expect(put.statusCode, put.body).toBe(200);
    await page.reload();
    const gone = field(tierNames(page), 'Gold (no longer a tier of the scheme)');
    expect(await gone.isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => error.innerText()).toContain('a tier it no longer has cannot stay ticked');
    expect(await gone.getAttribute('aria-invalid')).toBe('true');
    if (shots) {
      await tierNames(page).scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${LOOK}/tier-limit-refused-en.png` });
      await page.locator('#rule-form').screenshot({ path: `${SHOTS}/campaign-form-tiers-refused.png` });
    }
    expect((await read()).tiers).toEqual({ schemeId, names: ['Gold'] });
    await gone.uncheck();
    await field(tierNames(page), 'Gold Plus').check();
    await save(page);
    expect((await read()).tiers).toEqual({ schemeId, names: ['Gold Plus'] });

    // Everyone: the limit goes, and with it the page's card.
    await field(page, 'Only for status tiers').selectOption('');
    expect(await tierNames(page).count()).toBe(0);
    await save(page);
    expect((await read()).tiers ?? null).toBeNull();
    expect(await page.locator('[data-tier-limit]').count()).toBe(0);
    await context.close();
  }, 120_000);

  it('in German at 390 px: the field in German, and an ended scheme refused beside it in German', async () => {
    const body = tierScheme({ name: 'Brunch club' });
    const created = await app.t.admin('POST', `${merchant()}/loyaltySchemes`, body);
    const schemeId = (created.json() as { id: number }).id;
    const context = await app.browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    const page = await context.newPage();
    await signIn(page, app.baseUrl, OWNER);
    await page.goto(`${app.baseUrl}/portal/campaigns/new`);
    await Promise.all([page.waitForEvent('load'), page.locator('select[data-lang]').selectOption('de')]);
    await field(page, 'Name').fill('Silberfrühstück');
    await field(page, 'Art').selectOption('bill');
    await field(page, 'Rabatt').selectOption('amount');
    await field(page, 'Rabattwert').fill('2');
    await field(page, 'Nur für Statusstufen').selectOption(String(schemeId));
    await field(tierNames(page), 'Silver').check();
    await fitsWidth(page);
    if (shots) {
      await field(page, 'Nur für Statusstufen').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${LOOK}/tier-limit-form-de-390.png` });
      await page.screenshot({ path: `${SHOTS}/campaign-form-tiers-de-390.png` });
    }
    // The scheme ends while the form is open: saving is refused beside the scheme's choice.
    expect((await app.t.admin('DELETE', `/loyaltySchemes/${schemeId}`)).statusCode).toBe(200);
    await page.getByRole('button', { name: 'Speichern' }).click();
    const error = field(page, 'Nur für Statusstufen').locator('xpath=..').locator('.field-error');
    await expect.poll(() => error.innerText()).toContain('Wählen Sie ein laufendes Treueprogramm');
    await fitsWidth(page);
    if (shots) await page.screenshot({ path: `${LOOK}/tier-limit-refused-de-390.png` });
    await Promise.all([page.waitForEvent('load'), page.locator('select[data-lang]').selectOption('en')]);
    await context.close();
  }, 90_000);
});
