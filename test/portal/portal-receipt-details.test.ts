import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';
import { type PortalSession, portalCall, portalSession } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';
const DETAILS = {
  legalName: 'Café Müller GmbH',
  address: 'Hauptstraße 1\n10115 Berlin',
  taxNumber: 'DE123456789',
};

// docs/decisions.md, "Receipts a shop can hand out": owners set what the receipts say of the
// merchant; every portal user reads it.
describe.each(databases)('the receipt details in the merchant portal (%s)', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let owner: PortalSession;
  let staff: PortalSession;

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    const users = `/merchants/${encodeURIComponent(term.serviceUserName)}/portalUsers`;
    const ownerEmail = `settings-owner-${kind}@example.test`;
    const staffEmail = `settings-staff-${kind}@example.test`;
    expect((await t.admin('POST', users, { email: ownerEmail, password: PASSWORD })).statusCode).toBe(201);
    expect((await t.admin('POST', users, { email: staffEmail, password: PASSWORD })).statusCode).toBe(201);
    owner = await portalSession(t, ownerEmail, PASSWORD);
    staff = await portalSession(t, staffEmail, PASSWORD);
  });
  afterAll(async () => {
    await t?.close();
  });

  const page = (s: PortalSession, lang = 'en') =>
    t.app.inject({
      method: 'GET',
      url: '/portal/settings',
      headers: { cookie: s.cookie, 'accept-language': lang },
    });

  it('an owner sets them; the operator API and every portal user read the same', async () => {
    const res = await portalCall(t, owner, 'PUT', '/receiptDetails', DETAILS);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual(DETAILS);
    expect((await portalCall(t, staff, 'GET', '/receiptDetails')).json()).toEqual(DETAILS);
    const operator = await t.admin(
      'GET',
      `/merchants/${encodeURIComponent(term.serviceUserName)}/receiptDetails`,
    );
    expect(operator.json()).toEqual(DETAILS);
  });

  it('a VAT id typed as printed (spaces, dots, hyphens, small letters) is kept as the EU writes it', async () => {
    for (const typed of ['de 123 456 789', 'DE-123.456.789', ' DE 123456789 ']) {
      const res = await portalCall(t, owner, 'PUT', '/receiptDetails', { ...DETAILS, taxNumber: typed });
      expect(res.statusCode, `${typed}: ${res.body}`).toBe(200);
      expect(res.json()).toEqual(DETAILS);
    }
  });

  it('staff may not change them (403 role_forbidden), nor anyone without the CSRF token; nothing changes', async () => {
    await portalCall(t, owner, 'PUT', '/receiptDetails', DETAILS);
    const refused = await portalCall(t, staff, 'PUT', '/receiptDetails', { legalName: 'Other GmbH' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({
      error: { code: 'role_forbidden', message: expect.any(String), requestId: expect.any(String) },
    });
    const noCsrf = await portalCall(t, { cookie: owner.cookie }, 'PUT', '/receiptDetails', {
      legalName: 'Other',
    });
    expect(noCsrf.statusCode).toBe(403);
    const bad = await portalCall(t, owner, 'PUT', '/receiptDetails', { ...DETAILS, taxNumber: 'DE 123/4' });
    expect(bad.statusCode).toBe(400);
    expect((bad.json() as { error: { code: string } }).error.code).toBe('invalid_request');
    expect((await portalCall(t, owner, 'GET', '/receiptDetails')).json()).toEqual(DETAILS);
  });

  it("the owner's settings page is a form holding the values, in English and German; staff see the values and no form", async () => {
    await portalCall(t, owner, 'PUT', '/receiptDetails', DETAILS);
    const en = await page(owner);
    expect(en.statusCode).toBe(200);
    expect(en.body).toContain('data-api="PUT /portal/api/v1/receiptDetails"');
    expect(en.body).toContain('name="legalName" maxlength="200" value="Café Müller GmbH"');
    expect(en.body).toContain('>Hauptstraße 1\n10115 Berlin</textarea>');
    expect(en.body).toContain('value="DE123456789"');
    expect(en.body).toContain('VAT ID');
    expect(en.body).toContain('<a href="/portal/settings" aria-current="page"');
    await portalCall(t, owner, 'PUT', '/me/lang', { lang: 'de' });
    const de = await page(owner, 'de');
    expect(de.body).toContain('USt-IdNr.');
    expect(de.body).toContain('Firmenname');
    await portalCall(t, owner, 'PUT', '/me/lang', { lang: 'en' });
    const read = await page(staff);
    expect(read.statusCode).toBe(200);
    // No form of the receipt details (the page's other forms, as the user's own password, are theirs).
    expect(read.body).not.toContain('id="receipt-details-form"');
    expect(read.body).not.toContain('data-api="PUT /portal/api/v1/receiptDetails"');
    expect(read.body).not.toContain('receiptDetails"');
    expect(read.body).toContain('DE123456789');
    expect(read.body).toContain('Only an owner changes what the receipts say.');
    // Cleared, a field reads "not set".
    await portalCall(t, owner, 'PUT', '/receiptDetails', { legalName: DETAILS.legalName });
    expect((await page(staff)).body).toContain('not set');
  });
});
