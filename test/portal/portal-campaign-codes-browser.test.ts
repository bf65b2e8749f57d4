import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fitsWidth,
  openChromium,
  phoneLabelOf,
  screenshotDir,
  serve,
  type TestBrowser,
} from '../support/browser.js';
import { type TestApp, type Terminal, setupTerminal, startApp } from '../support/harness.js';
import { basket, signIn } from './portal-support.js';

const OWNER = { email: 'owner@codes.test', password: 'a-long-enough-password' };
// The pictures of docs/portal.md with PORTAL_SCREENSHOTS=1.
const SHOTS = screenshotDir('docs/portal', '.test-cache/portal');

/**
 * docs/decisions.md, "Unique codes", in a browser: the campaign form's "Unique codes" box, an owner
 * making a batch on the campaign's page, and the codes a till redeemed, with where and when.
 */
describe('unique codes on the campaign page in a browser', () => {
  let t: TestApp;
  let term: Terminal;
  let browser: TestBrowser;
  let baseUrl: string;
  let campaignId: number;

  beforeAll(async () => {
    t = await startApp('pglite');
    term = await setupTerminal(t);
    baseUrl = await serve(t);
    browser = await openChromium();
    const u = encodeURIComponent(term.serviceUserName);
    expect((await t.admin('POST', `/merchants/${u}/portalUsers`, OWNER)).statusCode).toBe(201);
    const created = await t.admin('POST', `/merchants/${u}/campaigns`, {
      name: 'Spring flyer: 1.50 off',
      type: 'bill',
      discount: { amount: 1.5 },
      uniqueCodes: true,
    });
    expect(created.statusCode, created.body).toBe(201);
    campaignId = (created.json() as { id: number }).id;
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('an owner makes 20 codes with a prefix; two redeemed at the till show when, terminal, outlet and basket (1280 and 390 px)', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, baseUrl, OWNER);
    await page.goto(`${baseUrl}/portal/campaigns/${campaignId}`);
    await expect.poll(() => page.getByRole('checkbox', { name: 'Unique codes' }).isChecked()).toBe(true);
    await expect.poll(() => page.getByText('No codes yet: make a batch.').isVisible()).toBe(true);
    const form = page.locator('#codes form');
    await form.locator('input[name=count]').fill('20');
    await form.locator('input[name=prefix]').fill('SPRING-');
    await form.locator('input[name=length]').fill('8');
    await Promise.all([page.waitForEvent('load'), form.getByRole('button', { name: 'Make codes' }).click()]);
    const batchRow = page.locator('#codes table').first().locator('tbody tr');
    await expect.poll(() => batchRow.count()).toBe(1);
    expect(await batchRow.first().textContent()).toMatch(/SPRING-\s*8\s*20\s*0/);

    // Two codes redeemed at the till.
    const u = encodeURIComponent(term.serviceUserName);
    const listed = await t.admin('GET', `/merchants/${u}/campaigns/${campaignId}/codes?limit=2`);
    const codes = (listed.json() as { data: { code: string }[] }).data.map((c) => c.code);
    for (const [i, code] of codes.entries()) {
      const id = `FLYER-${i + 1}`;
      const up = await term.pos('POST', `/baskets/${id}`, {
        body: { ...basket(t.clock.nowMs()), ContextIdentifiers: [code.toLowerCase()] },
      });
      expect(up.statusCode).toBe(200);
      expect((await term.pos('POST', `/baskets/${id}/grant`, { sign: id })).statusCode).toBe(200);
    }
    await page.reload();
    const redeemed = page.locator('#codes table').nth(1).locator('tbody tr');
    await expect.poll(() => redeemed.count()).toBe(2);
    for (const [i, code] of codes.entries()) {
      const text = (await redeemed.nth(i).textContent()) ?? '';
      expect(text).toContain(code);
      expect(text).toContain('Till 1');
      expect(text).toContain('Main street');
      expect(text).toContain(`FLYER-${i + 1}`);
    }
    expect(await batchRow.first().textContent()).toMatch(/SPRING-\s*8\s*20\s*2/);
    await fitsWidth(page);
    await page.locator('#codes').screenshot({ path: `${SHOTS}/campaign-codes.png` });
    await page.screenshot({ path: `${SHOTS}/campaign-codes-page.png`, fullPage: true });

    const phone = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const small = await phone.newPage();
    await signIn(small, baseUrl, OWNER);
    await small.goto(`${baseUrl}/portal/campaigns/${campaignId}`);
    await fitsWidth(small);
    // On the phone too the batch's CSV and each redeemed code's basket are in view, each value named.
    const phoneTables = small.locator('#codes table');
    for (const i of [0, 1])
      expect(await phoneTables.nth(i).evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
    expect(await phoneLabelOf(phoneTables.nth(0).locator('tbody tr td').nth(4))).toBe('Redeemed');
    expect(
      await small
        .getByRole('link', { name: 'FLYER-2' })
        .boundingBox()
        .then((b) => (b?.x ?? 999) + (b?.width ?? 0)),
    ).toBeLessThanOrEqual(390);
    await small.locator('#codes').screenshot({ path: `${SHOTS}/campaign-codes-phone.png` });

    // Ten more redeemed: the list is folded under its count, so the definition is not pages down.
    const more = await t.admin(
      'GET',
      `/merchants/${u}/campaigns/${campaignId}/codes?redeemed=false&limit=10`,
    );
    for (const [i, { code }] of (more.json() as { data: { code: string }[] }).data.entries()) {
      const id = `FLYER-${i + 3}`;
      const up = await term.pos('POST', `/baskets/${id}`, {
        body: { ...basket(t.clock.nowMs()), ContextIdentifiers: [code] },
      });
      expect(up.statusCode).toBe(200);
      expect((await term.pos('POST', `/baskets/${id}/grant`, { sign: id })).statusCode).toBe(200);
    }
    await small.reload();
    const folded = small.locator('#codes details.redeemed-codes');
    await expect.poll(() => folded.locator('summary').textContent()).toBe('List (12)');
    expect(await folded.locator('tbody tr').first().isVisible()).toBe(false);
    const definition = await small.locator('#codes').evaluate((e) => e.getBoundingClientRect().height);
    expect(definition).toBeLessThan(1500);
    await folded.locator('summary').click();
    await expect.poll(() => folded.locator('tbody tr').count()).toBe(12);
    expect(await folded.locator('tbody tr').first().isVisible()).toBe(true);
    await fitsWidth(small);
    await phone.close();
    await context.close();
  });

  it("a customer's code checked on the campaigns page: typed in lower case it shows its campaign, till, outlet and basket; a code none of the merchant's reads so is said in words (390 px)", async () => {
    const u = encodeURIComponent(term.serviceUserName);
    const listed = await t.admin('GET', `/merchants/${u}/campaigns/${campaignId}/codes?redeemed=true`);
    const [redeemed] = (listed.json() as { data: { code: string; basketId: string }[] }).data;
    if (!redeemed) throw new Error('no redeemed code');
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await phone.newPage();
    await signIn(page, baseUrl, OWNER);
    await page.goto(`${baseUrl}/portal/campaigns`);
    const check = page.locator('#code-check');
    await check.getByLabel('Code').fill(` ${redeemed.code.toLowerCase()}`);
    await Promise.all([page.waitForEvent('load'), check.getByRole('button', { name: 'Check' }).click()]);
    const facts = check.getByRole('status');
    await expect.poll(() => facts.textContent()).toContain(redeemed.code);
    const text = (await facts.innerText()).replace(/\s+/g, ' ');
    expect(text).toContain('Campaign Spring flyer: 1.50 off');
    expect(text).toContain('State Redeemed');
    expect(text).toContain('Terminal Till 1');
    expect(text).toContain('Outlet Main street');
    expect(text).toContain(`Basket ${redeemed.basketId}`);
    await fitsWidth(page);
    await check.screenshot({ path: `${SHOTS}/campaign-code-check-phone.png` });
    await Promise.all([
      page.waitForURL(/\/portal\/baskets\//),
      facts.getByRole('link', { name: redeemed.basketId }).click(),
    ]);

    await page.goto(`${baseUrl}/portal/campaigns`);
    await check.getByLabel('Code').fill('SPRING-0O1IL');
    await Promise.all([page.waitForEvent('load'), check.getByRole('button', { name: 'Check' }).click()]);
    await expect
      .poll(() => check.getByRole('status').innerText())
      .toContain('None of your codes reads “SPRING-0O1IL”.');
    await fitsWidth(page);

    // The campaign ended: an unused code of it is shown with its campaign's state, and that it gives nothing.
    expect(text).toContain('Campaign Spring flyer: 1.50 off live');
    expect((await t.admin('DELETE', `/merchants/${u}/campaigns/${campaignId}`)).statusCode).toBe(200);
    const unused = await t.admin(
      'GET',
      `/merchants/${u}/campaigns/${campaignId}/codes?redeemed=false&limit=1`,
    );
    const [spare] = (unused.json() as { data: { code: string }[] }).data;
    await check.getByLabel('Code').fill(spare?.code ?? '');
    await Promise.all([page.waitForEvent('load'), check.getByRole('button', { name: 'Check' }).click()]);
    const ended = (await check.getByRole('status').innerText()).replace(/\s+/g, ' ');
    expect(ended).toContain('Campaign Spring flyer: 1.50 off ended');
    expect(ended).toContain('State Unused Gives nothing at the till while its campaign does not run.');
    await check.screenshot({ path: `${SHOTS}/campaign-code-check-ended-phone.png` });
    await phone.close();
  });
});
