import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, databases, startApp } from '../support/harness.js';
import { type PurchaseHistory, purchaseHistory, signedIn } from './purchase-history.js';

/** The page's heading and text, tags dropped. */
function textOf(html: string): string {
  return html
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

// Links of /me and of a receipt as a person could edit or cut them.
const EDITED = [
  'page=1&page=2',
  'page=abc',
  'page=0',
  'page=%00',
  'until=%00',
  'until=2026-12-01&until=2026-12-02',
  'balanceCursor=%00',
  'balanceCursor=a&balanceCursor=b',
  'lang=de&lang=en',
  `until=${'x'.repeat(11)}`,
];

describe.each(databases)("links of the consumer's pages edited by hand, on %s", (kind) => {
  let t: TestApp;
  let h: PurchaseHistory;
  let cookie: string;

  beforeAll(async () => {
    t = await startApp(kind);
    h = await purchaseHistory(t);
    cookie = await signedIn(t, h.email);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a link of /me that was changed or cut is a 400 page "Invalid link" in the browser\'s language, with the way back', async () => {
    for (const query of EDITED) {
      for (const [language, title, text] of [
        ['de-DE,de;q=0.9', 'Ungültiger Link', 'Dieser Link wurde verändert oder ist unvollständig'],
        ['en-GB', 'Invalid link', 'This link was changed or is incomplete'],
      ] as const) {
        const r = await t.app.inject({
          method: 'GET',
          url: `/me?${query}`,
          headers: { cookie, 'accept-language': language },
        });
        expect(r.statusCode, query).toBe(400);
        expect(r.headers['content-type'], query).toContain('text/html');
        const page = textOf(r.body);
        expect(page, query).toContain(`${title} ${text}`);
        expect(r.body, query).toContain('<a href="/me">');
        // Nothing of the check's words for integrators.
        expect(page, query).not.toMatch(/querystring|deserialised|well-formed/);
      }
    }
    // Signed out, the same.
    const anonymous = await t.app.inject({ method: 'GET', url: '/me?page=1&page=2' });
    expect(anonymous.statusCode).toBe(400);
    expect(textOf(anonymous.body)).toContain('Invalid link');
  });

  it("a receipt's link with a field given twice is the same page; a form's refusal keeps its own message", async () => {
    const receipt = await t.database.db.selectFrom('receipts').select('id').executeTakeFirstOrThrow();
    const r = await t.app.inject({
      method: 'GET',
      url: `/receipts/${receipt.id}?lang=de&lang=en`,
      headers: { 'accept-language': 'de' },
    });
    expect(r.statusCode).toBe(400);
    expect(textOf(r.body)).toContain('Ungültiger Link');
    // The sign-in form without its address: the form's check says what is missing.
    const form = await t.app.inject({
      method: 'POST',
      url: '/me/sign-in',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'lang=en',
    });
    expect(form.statusCode).toBe(400);
    expect(textOf(form.body)).not.toContain('Invalid link');
    expect(textOf(form.body)).toContain('email');
  });
});
