import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokens } from '../cards/cards-support.js';
import { type TestBrowser, fitsWidth, openChromium, screenshotDir, serve } from '../support/browser.js';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';
import { expectLedgerSound } from '../checkout/checkout-support.js';
import { fieldsOf } from '../support/csv.js';
import { addPortalUser, signIn } from './portal-support.js';

const STAFF = { email: 'kasse@enrolment-browser.test', password: 'a-long-enough-password' };
const SHOTS = screenshotDir('docs/portal', '.test-cache/screenshots');

/**
 * docs/decisions.md, "Enrolling a customer in the portal": at the counter, on a phone in German, a
 * staff member finds no customer of that name, enrols them with the card they are handed, and links
 * a card the customer had used without an account, whose balance then is the customer's; and
 * (docs/decisions.md, "A customer's name and language changed in the portal") corrects a name later.
 */
describe.each(databases)('enrolling a customer at the counter in a browser (%s)', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let browser: TestBrowser;
  let baseUrl: string;
  const shots = kind === 'pglite';

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    await addPortalUser(t, term.serviceUserName, { ...STAFF, role: 'staff', lang: 'de' });
    baseUrl = await serve(t);
    browser = await openChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('staff enrol a customer found nowhere, with a new card, by a double click, and link the card she used before (390 px, German)', async () => {
    const old = `ALT-${kind}-7731`;
    await tokens(term).register(old);
    expect((await tokens(term).add(old, '8.40')).statusCode).toBe(200);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    const page = await context.newPage();
    await signIn(page, baseUrl, STAFF);
    await page.goto(`${baseUrl}/portal/cards`);
    await page.getByLabel('Kunde').fill('Jana Weber');
    await Promise.all([page.waitForURL(/q=Jana/), page.getByLabel('Kunde').press('Enter')]);
    await Promise.all([
      page.waitForURL(/\/portal\/profiles\/new\?fullName=Jana/),
      page.getByRole('link', { name: 'Als neuen Kunden anlegen →' }).click(),
    ]);
    expect(await page.getByLabel('Name').inputValue()).toBe('Jana Weber');
    await page.getByLabel('E-Mail-Adresse').fill('jana.weber@example.org');
    await page.getByLabel('Kartennummer (optional)').fill(`NEU-${kind}-0042`);
    await fitsWidth(page);
    if (shots) await page.screenshot({ path: `${SHOTS}/enrol-phone.png`, fullPage: true });
    // Tapped twice before the answer came: one customer.
    await Promise.all([
      page.waitForURL(/\/portal\/profiles\/[0-9]+$/),
      page.getByRole('button', { name: 'Kunden anlegen' }).dblclick(),
    ]);
    expect(await page.locator('#profile-name').innerText()).toBe('Jana Weber');
    expect(await page.locator('#profile-cards').innerText()).toContain(`NEU-${kind}-0042 · Kundenkarte`);
    const made = await t.database.db
      .selectFrom('profiles')
      .select('id')
      .where('email', '=', 'jana.weber@example.org')
      .execute();
    expect(made).toHaveLength(1);
    expect(page.url()).toMatch(new RegExp(`/portal/profiles/${made[0]?.id}$`));
    // "Willkommens-E-Mail senden" was ticked: one welcome mail queued for her, double click or not
    // (docs/decisions.md, "The welcome mail").
    const welcome = await t.database.db
      .selectFrom('outbox_messages')
      .select('payload')
      .where('topic', '=', 'profile.welcome_mail')
      .execute();
    expect(welcome.filter((m) => m.payload.profileId === made[0]?.id)).toHaveLength(1);

    // The card she paid with before she had an account: its 8,40 € become hers.
    await page.getByLabel('Kartennummer', { exact: true }).fill(old);
    await Promise.all([
      page.waitForEvent('load'),
      page.getByRole('button', { name: 'Karte verknüpfen' }).click(),
    ]);
    await page.locator('#profile-cards').waitFor();
    expect(await page.locator('#profile-cards').innerText()).toContain(old);
    expect(await page.locator('#profile-balance').innerText()).toBe('8,40\u00a0€');
    const account = await t.database.db
      .selectFrom('profiles as p')
      .innerJoin('ledger_accounts as a', 'a.id', 'p.account_id')
      .select('a.balance_minor')
      .where('p.id', '=', made[0]?.id ?? 0)
      .executeTakeFirstOrThrow();
    expect(Number(account.balance_minor)).toBe(840);
    // Her history goes back to the card's load at the till, before she had an account.
    const rows = page.locator('#balance-history tbody tr');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().locator('td').nth(2).innerText()).toContain('Kasse');
    expect(await rows.first().locator('td').nth(3).innerText()).toBe('8,40\u00a0€');
    expect(await rows.first().locator('td').nth(4).innerText()).toBe('8,40\u00a0€');
    await fitsWidth(page);
    if (shots) await page.screenshot({ path: `${SHOTS}/enrolled-phone.png`, fullPage: true });

    // "Alle Kunden" on the cards page lists her, with her balance (docs/decisions.md, "All customers, page by page").
    await page.goto(`${baseUrl}/portal/cards`);
    await Promise.all([page.waitForURL(/all=1/), page.getByRole('link', { name: 'Alle Kunden' }).click()]);
    const jana = page.locator('#consumers tbody tr', { hasText: 'Jana Weber' });
    expect(await jana.count()).toBe(1);
    expect(await jana.innerText()).toContain('8,40\u00a0€');
    await fitsWidth(page);
    if (shots) await page.screenshot({ path: `${SHOTS}/all-customers-phone.png`, fullPage: true });
    // The highest balance first, and back (docs/decisions.md, "All customers, page by page").
    await Promise.all([
      page.waitForURL(/sort=balance/),
      page.getByRole('link', { name: 'Höchstes Guthaben zuerst' }).click(),
    ]);
    const shown = await page.locator('#consumers tbody td.num').allInnerTexts();
    const cents = shown.map((x) => Number(x.replace(/[^\d,]/g, '').replace(',', '.')));
    expect(cents).toEqual([...cents].sort((a, b) => b - a));
    expect(await page.locator('#consumers tbody tr', { hasText: 'Jana Weber' }).count()).toBe(1);
    await Promise.all([
      page.waitForURL((url) => !url.search.includes('sort=')),
      page.getByRole('link', { name: 'Älteste zuerst' }).click(),
    ]);
    // All of them as CSV, downloaded as a merchant's browser does: her line, her balance.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Alle Kunden als CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('customers.csv');
    const csv = (await readFile(await download.path(), 'utf8')).split('\r\n').map(fieldsOf);
    expect(csv[0]?.join(',')).toBe('profileId,name,email,language,balance,currency,points,cards,createdDay');
    expect(csv.find((l) => l[0] === String(made[0]?.id))?.slice(1, 8)).toEqual([
      'Jana Weber',
      'jana.weber@example.org',
      // The form's language, as the staff member's page: German.
      'de',
      '8.40',
      'EUR',
      '0',
      `${old} NEU-${kind}-0042`,
    ]);

    // The same address again is refused in German, and nothing is made.
    await page.goto(`${baseUrl}/portal/profiles/new`);
    await page.getByLabel('Name').fill('J. Weber');
    await page.getByLabel('E-Mail-Adresse').fill('Jana.Weber@example.org');
    await page.getByRole('button', { name: 'Kunden anlegen' }).click();
    await expect
      .poll(() => page.locator('#enrol-customer .form-error').innerText())
      .toContain('Ein Kunde mit dieser E-Mail-Adresse existiert bereits');
    if (shots) await page.locator('#enrol-customer').screenshot({ path: `${SHOTS}/enrol-refused-phone.png` });
    // A slip a mail server would refuse (two dots in a row) is refused where it is typed
    // (docs/decisions.md, "E-mail addresses").
    await page.getByLabel('E-Mail-Adresse').fill('jana..weber@example.org');
    await page.getByRole('button', { name: 'Kunden anlegen' }).click();
    await expect
      .poll(() => page.locator('#enrol-customer .form-error').innerText())
      .toBe(
        'Diese Adresse nimmt kein Mailserver an: Prüfen Sie sie auf einen Tippfehler, etwa zwei Punkte hintereinander oder nichts nach dem @. Nichts wurde gespeichert.',
      );
    // Neither a name nor an address: the form asks for one of them.
    await page.getByLabel('Name', { exact: true }).fill('');
    await page.getByLabel('E-Mail-Adresse').fill('');
    await page.getByRole('button', { name: 'Kunden anlegen' }).click();
    await expect
      .poll(() => page.locator('#enrol-customer .form-error').innerText())
      .toBe('Geben Sie einen Namen an, oder eine E-Mail-Adresse wie name@example.org.');
    expect(
      await t.database.db.selectFrom('profiles').select('id').where('full_name', '=', 'J. Weber').execute(),
    ).toEqual([]);
    await expectLedgerSound(t);
    await context.close();
  }, 90_000);

  it("staff correct a customer's misspelt name and the language of her mails on her page; clearing the name of a customer without an address is refused in German (390 px)", async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    const page = await context.newPage();
    await signIn(page, baseUrl, STAFF);
    await page.goto(`${baseUrl}/portal/profiles/new`);
    await page.getByLabel('Name').fill('Marta Kowalsky');
    await page.getByLabel('Sprache der Belege und E-Mails').selectOption('en');
    await Promise.all([
      page.waitForURL(/\/portal\/profiles\/[0-9]+$/),
      page.getByRole('button', { name: 'Kunden anlegen' }).click(),
    ]);
    const id = Number(page.url().split('/').pop());
    const form = page.locator('#profile-details');
    expect(await form.getByLabel('Name').inputValue()).toBe('Marta Kowalsky');
    expect(await form.getByLabel('Sprache der Belege und E-Mails').inputValue()).toBe('en');

    await form.getByLabel('Name').fill('Marta Kowalski');
    await form.getByLabel('Sprache der Belege und E-Mails').selectOption('de');
    await Promise.all([page.waitForEvent('load'), form.getByRole('button', { name: 'Speichern' }).click()]);
    await expect.poll(() => page.locator('#profile-name').innerText()).toBe('Marta Kowalski');
    expect(await form.getByLabel('Sprache der Belege und E-Mails').inputValue()).toBe('de');
    const row = () =>
      t.database.db
        .selectFrom('profiles')
        .select(['full_name', 'email', 'language'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    expect(await row()).toEqual({ full_name: 'Marta Kowalski', email: null, language: 'de' });

    // She has no address: her name is all that tells her apart, so it cannot be cleared.
    await form.getByLabel('Name').fill('');
    await form.getByRole('button', { name: 'Speichern' }).click();
    await expect
      .poll(() => form.locator('.form-error').innerText())
      .toBe('Dieser Kunde hat keine E-Mail-Adresse: Lassen Sie einen Namen stehen.');
    await fitsWidth(page);
    if (shots) await form.screenshot({ path: `${SHOTS}/profile-details-refused-phone.png` });
    expect(await row()).toEqual({ full_name: 'Marta Kowalski', email: null, language: 'de' });
    await context.close();
  }, 90_000);

  it('staff send the welcome mail from the page of a customer enrolled without it: none before, handed to the mail server after; a customer without an address is told why (390 px, German)', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    const page = await context.newPage();
    await signIn(page, baseUrl, STAFF);
    await page.goto(`${baseUrl}/portal/profiles/new`);
    await page.getByLabel('Name').fill('Paul Kern');
    await page.getByLabel('E-Mail-Adresse').fill(`paul.kern.${kind}@example.org`);
    await page.getByLabel('Willkommens-E-Mail senden').uncheck();
    await Promise.all([
      page.waitForURL(/\/portal\/profiles\/[0-9]+$/),
      page.getByRole('button', { name: 'Kunden anlegen' }).click(),
    ]);
    const id = Number(page.url().split('/').pop());
    const part = page.locator('#welcome-mail');
    expect(await part.locator('#welcome-mail-state').innerText()).toBe('Noch keine gesendet.');
    // Tapped twice: one mail (docs/decisions.md, "The welcome mail sent again").
    await Promise.all([
      page.waitForEvent('load'),
      part.getByRole('button', { name: 'Willkommens-E-Mail senden' }).dblclick(),
    ]);
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.locator('#welcome-mail-state').innerText();
        },
        { timeout: 15_000 },
      )
      .toMatch(/^Am .+ an den Mailserver übergeben\.$/);
    expect(await part.getByRole('button', { name: 'Willkommens-E-Mail erneut senden' }).count()).toBe(1);
    const messages = await t.database.db
      .selectFrom('outbox_messages')
      .select(['payload', 'status'])
      .where('topic', '=', 'profile.welcome_mail')
      .execute();
    expect(messages.filter((m) => m.payload.profileId === id).map((m) => m.status)).toEqual(['delivered']);
    await fitsWidth(page);
    if (shots) await part.screenshot({ path: `${SHOTS}/welcome-mail-sent-phone.png` });

    // A customer without an address: no button, and why.
    await page.goto(`${baseUrl}/portal/profiles/new`);
    await page.getByLabel('Name').fill('Ohne Adresse');
    await Promise.all([
      page.waitForURL(/\/portal\/profiles\/[0-9]+$/),
      page.getByRole('button', { name: 'Kunden anlegen' }).click(),
    ]);
    expect(await page.locator('#welcome-mail').innerText()).toContain(
      'Ohne E-Mail-Adresse gibt es kein Ziel; ein Inhaber kann eine eintragen.',
    );
    expect(await page.locator('#send-welcome-mail').count()).toBe(0);
    await context.close();
  }, 90_000);

  it('a card number nobody has, or a usable card without a customer, offers to enrol its holder, the number filled in', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    const page = await context.newPage();
    await signIn(page, baseUrl, STAFF);
    await page.goto(`${baseUrl}/portal/cards?tokenId=${encodeURIComponent(`NIE-${kind}-1`)}`);
    await Promise.all([
      page.waitForURL(/\/portal\/profiles\/new\?tokenId=/),
      page.getByRole('link', { name: 'Neuen Kunden mit dieser Karte anlegen →' }).click(),
    ]);
    expect(await page.getByLabel('Kartennummer (optional)').inputValue()).toBe(`NIE-${kind}-1`);
    // A card the till registered, used without a customer: its page offers the same.
    const anonymous = `ANONYM-${kind}-5`;
    await tokens(term).register(anonymous);
    await page.goto(`${baseUrl}/portal/cards?tokenId=${anonymous}`);
    await Promise.all([
      page.waitForURL(/\/portal\/profiles\/new\?tokenId=/),
      page.locator('#enrol-holder').click(),
    ]);
    expect(await page.getByLabel('Kartennummer (optional)').inputValue()).toBe(anonymous);
    // A locked one does not: it could not be linked.
    expect((await tokens(term).lock(anonymous)).statusCode).toBe(200);
    await page.goto(`${baseUrl}/portal/cards?tokenId=${anonymous}`);
    await page.locator('#card-holder').waitFor();
    expect(await page.locator('#enrol-holder').count()).toBe(0);
    await context.close();
  }, 60_000);
});
