import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { databases } from '../support/harness.js';
import { fitsWidth, screenshotDir } from '../support/browser.js';
import { portalBrowserApp } from './portal-browser-app.js';
import { field, signIn } from './portal-support.js';

/**
 * The status tiers of a loyalty scheme in the portal's form (docs/decisions.md, "Status tiers"):
 * the measure, the period, rows of name, threshold and multiplier; the API's refusals beside the
 * field they name; saving replaces the stored tiers with the form's.
 */

const SHOTS = screenshotDir('docs/portal', '.test-cache/portal');
const OWNER = { email: 'owner@scheme-tiers.test', password: 'scheme-tiers-2026' };

/** A screenshot of the tier fields only, from the measure to the rows' add button (full pages are long). */
async function tierShot(page: Page, path: string): Promise<void> {
  const [top, bottom] = await page.evaluate<[number, number]>(`(() => {
    const top = document.querySelector('select[data-path="tierBasis.measure"]').parentElement.getBoundingClientRect();
    const rows = document.querySelector('fieldset[data-path="tiers"]').getBoundingClientRect();
    return [top.top + window.scrollY, Math.max(rows.bottom, top.bottom) + window.scrollY];
  })()`);
  const width = page.viewportSize()?.width ?? 1280;
  const y = Math.max(0, top - 16);
  await page.screenshot({ path, fullPage: true, clip: { x: 0, y, width, height: bottom + 16 - y } });
}
const tierRows = (page: Page) => page.locator('fieldset[data-path="tiers"] > [data-rows] > [data-row]');

describe.each(databases)('status tiers in the loyalty-scheme form, in a browser (%s)', (kind) => {
  const app = portalBrowserApp(kind, OWNER);
  const shots = kind === 'pglite';

  it('an owner creates a scheme with two tiers, a refusal shows beside its field, the API reads the tiers back; editing removes one', async () => {
    const context = await app.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, app.baseUrl, OWNER);
    await page.goto(`${app.baseUrl}/portal/loyaltySchemes/new`);
    await field(page, 'Name').fill('Coffee card');
    const earn = page.locator('fieldset[data-path="earn"] > [data-rows] > [data-row]').first();
    await field(earn, 'Points').fill('1');
    // No tiers: the period and the rows are not offered.
    await expect.poll(() => field(page, 'Period').count()).toBe(0);
    await field(page, 'Status tiers by').selectOption('points');
    await expect.poll(() => field(page, 'Days').count()).toBe(1);
    await field(page, 'Days').fill('90');
    for (const [name, threshold, multiplier] of [
      ['Silver', '100', '1.5'],
      ['Gold', '50', '2'],
    ]) {
      await page.getByRole('button', { name: 'Add tier' }).click();
      const row = tierRows(page).last();
      await field(row, 'Tier name').fill(name ?? '');
      await field(row, 'Threshold').fill(threshold ?? '');
      await field(row, 'Multiplier').fill(multiplier ?? '');
    }
    // Gold's threshold is below Silver's: refused, named beside Gold's threshold, nothing stored.
    await page.getByRole('button', { name: 'Save' }).click();
    const error = tierRows(page).nth(1).locator('.field-error');
    await expect.poll(() => error.innerText()).toContain('above the tier before');
    expect(await field(tierRows(page).nth(1), 'Threshold').getAttribute('aria-invalid')).toBe('true');
    expect(page.url()).toMatch(/\/new$/);
    if (shots) {
      await page.screenshot({ path: `${SHOTS}/scheme-tiers-refused-en.png`, fullPage: true });
      await tierShot(page, `${SHOTS}/scheme-tiers-refused-en-fields.png`);
    }
    await field(tierRows(page).nth(1), 'Threshold').fill('500');
    await Promise.all([
      page.waitForURL(/\/portal\/loyaltySchemes\/[0-9]+$/),
      page.getByRole('button', { name: 'Save' }).click(),
    ]);
    const id = Number(page.url().split('/').pop());
    const read = async () =>
      (await app.t.admin('GET', `/loyaltySchemes/${id}`)).json() as Record<string, unknown>;
    expect(await read()).toMatchObject({
      name: 'Coffee card',
      tiers: [
        { name: 'Silver', threshold: 100, multiplier: 1.5 },
        { name: 'Gold', threshold: 500, multiplier: 2 },
      ],
      tierBasis: { measure: 'points', period: { rollingDays: 90 } },
    });

    // The scheme's page shows its tiers in the form; Gold removed, by calendar month: saved so.
    await page.reload();
    await expect.poll(() => tierRows(page).count()).toBe(2);
    expect(await field(tierRows(page).nth(0), 'Tier name').inputValue()).toBe('Silver');
    expect(await field(tierRows(page).nth(1), 'Multiplier').inputValue()).toBe('2');
    if (shots) {
      await page.screenshot({ path: `${SHOTS}/scheme-tiers-page-en.png`, fullPage: true });
      await tierShot(page, `${SHOTS}/scheme-tiers-page-en-fields.png`);
    }
    await tierRows(page).nth(1).getByRole('button', { name: 'Remove' }).click();
    await field(page, 'Period').selectOption('month');
    await expect.poll(() => field(page, 'Days').count()).toBe(0);
    await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'PUT' && r.status() === 200),
      // Saved, the form opens the scheme's page again.
      page.waitForEvent('framenavigated'),
      page.getByRole('button', { name: 'Save' }).click(),
    ]);
    await page.waitForLoadState('load');
    const edited = await read();
    expect(edited.tiers).toEqual([{ name: 'Silver', threshold: 100, multiplier: 1.5 }]);
    expect(edited.tierBasis).toEqual({ measure: 'points', period: { calendar: 'month' } });

    // No status tiers: both go.
    await page.reload();
    await field(page, 'Status tiers by').selectOption('');
    await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'PUT' && r.status() === 200),
      // Saved, the form opens the scheme's page again.
      page.waitForEvent('framenavigated'),
      page.getByRole('button', { name: 'Save' }).click(),
    ]);
    await page.waitForLoadState('load');
    const none = await read();
    expect(none.tiers ?? []).toEqual([]);
    expect(none.tierBasis ?? null).toBeNull();
    await context.close();
  }, 90_000);

  it('in German at 390 px: the tier fields, a refusal of the multiplier in German, and spend thresholds in the currency', async () => {
    const context = await app.browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    const page = await context.newPage();
    await signIn(page, app.baseUrl, OWNER);
    await page.goto(`${app.baseUrl}/portal/loyaltySchemes/new`);
    await field(page, 'Name').fill('Frühstücksclub');
    const earn = page.locator('fieldset[data-path="earn"] > [data-rows] > [data-row]').first();
    await field(earn, 'Punkte').fill('1');
    await field(page, 'Statusstufen nach').selectOption('spend');
    await field(page, 'Zeitraum').selectOption('quarter');
    await page.getByRole('button', { name: 'Stufe hinzufügen' }).click();
    const row = tierRows(page).first();
    await field(row, 'Name der Stufe').fill('Stammgast');
    await field(row, 'Schwelle').fill('250,50');
    await field(row, 'Faktor').fill('11');
    await page.getByRole('button', { name: 'Speichern' }).click();
    await expect.poll(() => row.locator('.field-error').innerText()).toContain('Faktor von 1 bis 10');
    await fitsWidth(page);
    if (shots) {
      await page.screenshot({ path: `${SHOTS}/scheme-tiers-refused-de-390.png`, fullPage: true });
      await tierShot(page, `${SHOTS}/scheme-tiers-refused-de-390-fields.png`);
    }
    await field(row, 'Faktor').fill('1,25');
    await Promise.all([
      page.waitForURL(/\/portal\/loyaltySchemes\/[0-9]+$/),
      page.getByRole('button', { name: 'Speichern' }).click(),
    ]);
    const id = Number(page.url().split('/').pop());
    expect((await app.t.admin('GET', `/loyaltySchemes/${id}`)).json()).toMatchObject({
      tiers: [{ name: 'Stammgast', threshold: 250.5, multiplier: 1.25 }],
      tierBasis: { measure: 'spend', period: { calendar: 'quarter' } },
    });
    await fitsWidth(page);
    if (shots) {
      await page.screenshot({ path: `${SHOTS}/scheme-tiers-page-de-390.png`, fullPage: true });
      await tierShot(page, `${SHOTS}/scheme-tiers-page-de-390-fields.png`);
    }
    await context.close();
  }, 90_000);
});
