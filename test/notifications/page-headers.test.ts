import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignIn, profilesByEmail } from '../../src/notifications/consumer-auth.store.js';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';
import { routesOf } from '../support/routes.js';
import { PDF, profileWithCard, receiptBasket, uniqueId, uploadAndGrant } from './support.js';

/** What a request of the table needs: a signed-in session, a receipt with a BillPdf. */
interface Fixture {
  cookie: string;
  csrf: string;
  receiptId: string;
  signInToken: string;
}

interface Row {
  /** The route as Fastify names it. */
  readonly route: string;
  readonly name: string;
  readonly status: number;
  /** html, pdf, script, css or json: what the answer must be. */
  readonly kind: 'html' | 'pdf' | 'script' | 'css' | 'json';
  readonly request: (f: Fixture) => {
    method: 'GET' | 'POST';
    url: string;
    headers?: Record<string, string>;
    payload?: string | object;
  };
}

const form = { 'content-type': 'application/x-www-form-urlencoded' };

// Every route of the consumer's side, and at least one answer of each (errors included).
const table: Row[] = [
  {
    route: '/me',
    name: 'sign-in page',
    status: 200,
    kind: 'html',
    request: () => ({ method: 'GET', url: '/me' }),
  },
  {
    route: '/me',
    name: 'account page',
    status: 200,
    kind: 'html',
    request: (f) => ({ method: 'GET', url: '/me', headers: { cookie: f.cookie } }),
  },
  {
    route: '/me',
    name: 'an invalid page number (error page)',
    status: 400,
    kind: 'html',
    request: (f) => ({ method: 'GET', url: '/me?page=zero', headers: { cookie: f.cookie } }),
  },
  {
    route: '/me/sign-in',
    name: 'sign-in link requested',
    status: 200,
    kind: 'html',
    request: () => ({
      method: 'POST',
      url: '/me/sign-in',
      headers: form,
      payload: 'email=nobody%40example.org',
    }),
  },
  {
    route: '/me/sign-in/:token',
    name: 'sign-in link opened (redirect)',
    status: 303,
    kind: 'html',
    request: (f) => ({ method: 'GET', url: `/me/sign-in/${f.signInToken}` }),
  },
  {
    route: '/me/sign-in/:token',
    name: 'unknown sign-in link',
    status: 400,
    kind: 'html',
    request: () => ({ method: 'GET', url: '/me/sign-in/unknown' }),
  },
  {
    route: '/me/preferences',
    name: 'switches saved (redirect)',
    status: 303,
    kind: 'html',
    request: (f) => ({
      method: 'POST',
      url: '/me/preferences',
      headers: { ...form, cookie: f.cookie },
      payload: `csrf=${f.csrf}&mail=on&push=on`,
    }),
  },
  {
    route: '/me/preferences',
    name: 'switches without the CSRF token (error page)',
    status: 403,
    kind: 'html',
    request: (f) => ({
      method: 'POST',
      url: '/me/preferences',
      headers: { ...form, cookie: f.cookie },
      payload: 'mail=on',
    }),
  },
  {
    route: '/me/sign-out',
    name: 'signed out (redirect)',
    status: 303,
    kind: 'html',
    request: () => ({ method: 'POST', url: '/me/sign-out', headers: form, payload: '' }),
  },
  {
    route: '/me/push.js',
    name: 'push script',
    status: 200,
    kind: 'script',
    request: () => ({ method: 'GET', url: '/me/push.js' }),
  },
  {
    route: '/me/sw.js',
    name: 'service worker',
    status: 200,
    kind: 'script',
    request: () => ({ method: 'GET', url: '/me/sw.js' }),
  },
  {
    route: '/me/pages.css',
    name: 'style sheet',
    status: 200,
    kind: 'css',
    request: () => ({ method: 'GET', url: '/me/pages.css' }),
  },
  {
    route: '/receipts/:id',
    name: 'receipt',
    status: 200,
    kind: 'html',
    request: (f) => ({ method: 'GET', url: `/receipts/${f.receiptId}` }),
  },
  {
    route: '/receipts/:id',
    name: 'unknown receipt',
    status: 404,
    kind: 'html',
    request: () => ({ method: 'GET', url: '/receipts/AAAAAAAAAAAAAAAAAAAAAA' }),
  },
  {
    route: '/receipts/:id/bill.pdf',
    name: 'the bill PDF',
    status: 200,
    kind: 'pdf',
    request: (f) => ({ method: 'GET', url: `/receipts/${f.receiptId}/bill.pdf` }),
  },
  {
    route: '/receipts/:id/bill.pdf',
    name: 'unknown bill PDF',
    status: 404,
    kind: 'html',
    request: () => ({ method: 'GET', url: '/receipts/AAAAAAAAAAAAAAAAAAAAAA/bill.pdf' }),
  },
  {
    route: '/api/me/v1/push-subscriptions',
    name: 'a malformed push subscription',
    status: 400,
    kind: 'json',
    request: () => ({ method: 'POST', url: '/api/me/v1/push-subscriptions', payload: {} }),
  },
];

/** The headers every answer of the consumer's side carries (docs/security.md, "Pages for people"). */
function expectHardened(res: LightMyRequestResponse, kind: Row['kind']): void {
  const h = res.headers;
  expect(h['x-content-type-options']).toBe('nosniff');
  expect(h['x-frame-options']).toBe('DENY');
  expect(h['referrer-policy']).toBe('no-referrer');
  const csp = String(h['content-security-policy'] ?? '');
  expect(csp).toContain("frame-ancestors 'none'");
  if (kind === 'pdf') {
    // The till's document: sandboxed, downloaded, a PDF by its type.
    expect(csp).toMatch(/(^|; )sandbox(;|$)/);
    expect(h['content-type']).toBe('application/pdf');
    expect(h['content-disposition']).toBe('attachment; filename="bill.pdf"');
    return;
  }
  // No inline script or style may run: only files of our own origin.
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("style-src 'self'");
  expect(csp).not.toContain('unsafe-inline');
  expect(csp).not.toContain('unsafe-eval');
  expect(csp).toContain("base-uri 'none'");
  expect(csp).toContain("form-action 'self'");
  const type = String(h['content-type'] ?? '');
  if (kind === 'html' && res.statusCode !== 303) {
    expect(type).toContain('text/html');
    // No inline script, no inline style: every script and style sheet is a file.
    expect(res.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
    expect(res.body).not.toMatch(/<style[\s>]/i);
    expect(res.body).not.toMatch(/\sstyle=/i);
    expect(res.body).not.toMatch(/\son[a-z]+=/i);
  }
  if (kind === 'script') expect(type).toContain('text/javascript');
  if (kind === 'css') expect(type).toContain('text/css');
  if (kind === 'json') expect(type).toContain('application/json');
}

describe.each(databases)('security headers of the consumer side on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  const f: Fixture = { cookie: '', csrf: '', receiptId: '', signInToken: '' };

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    const { cardId, email } = await profileWithCard(t, term, { language: 'en' });
    const basketId = uniqueId('headers');
    await uploadAndGrant(term, basketId, { consumerIdentToken: cardId }, receiptBasket(true));
    const row = await t.database.db
      .selectFrom('baskets')
      .select('grant_result')
      .where('tracking_unit_id', '=', term.trackingUnitId)
      .where('basket_id', '=', basketId)
      .executeTakeFirstOrThrow();
    f.receiptId = row.grant_result?.receiptId ?? '';
    const [profile] = await profilesByEmail(t.database.db, email);
    if (!profile) throw new Error('no profile');
    const signIn = await t.app.inject({
      method: 'GET',
      url: `/me/sign-in/${await createSignIn(t.database.db, profile, t.clock.nowMs())}`,
    });
    f.cookie = String(signIn.headers['set-cookie']).split(';')[0] ?? '';
    const page = await t.app.inject({ method: 'GET', url: '/me', headers: { cookie: f.cookie } });
    f.csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
    f.signInToken = await createSignIn(t.database.db, profile, t.clock.nowMs());
  });
  afterAll(async () => {
    await t?.close();
  });

  it('the table names every route of /me, /receipts and /api/me: a new route fails here until it is listed', () => {
    const served = routesOf(t.app)
      .filter((r) => /^\/(me|receipts|api\/me)(\/|$)/.test(r.path))
      .map((r) => r.path)
      .sort();
    expect(served).toEqual([...new Set(table.map((r) => r.route))].sort());
  });

  for (const row of table) {
    it(`${row.route}: ${row.name} answers ${row.status} with the security headers`, async () => {
      const res = await t.app.inject(row.request(f));
      expect(res.statusCode, res.body.slice(0, 300)).toBe(row.status);
      expectHardened(res, row.kind);
      if (row.kind === 'pdf') expect(res.rawPayload.equals(PDF)).toBe(true);
    });
  }

  it('/me/pages.css is the style sheet the pages link, kept by a browser only at its current version', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/me' });
    const href = /<link rel="stylesheet" href="([^"]+)">/.exec(page.body)?.[1] ?? '';
    expect(href).toMatch(/^\/me\/pages\.css\?v=[0-9a-f]{12}$/);
    const css = await t.app.inject({ method: 'GET', url: href });
    expect(css.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(css.body).toContain('@media print');
    const stale = await t.app.inject({ method: 'GET', url: '/me/pages.css?v=000000000000' });
    expect(stale.headers['cache-control']).toBe('no-cache');
  });

  it('"BillPdf, a PDF copy of the bill": bytes that are not a PDF are refused at the upload with 11015, and nothing is stored', async () => {
    const html = Buffer.from('<html><script>alert(document.cookie)</script></html>');
    const cases: [string, Buffer][] = [
      ['an HTML page with a script', html],
      ['a PDF header without its end', Buffer.from('%PDF-1.7\n1 0 obj <<>> endobj\n')],
      ['an end without a PDF header', Buffer.from('<html>%%EOF</html>')],
      ['a header after other bytes', Buffer.concat([Buffer.from('<x>'), PDF])],
      ['%%EOF followed by more than a reader looks at', Buffer.concat([PDF, Buffer.alloc(2000, 0x41)])],
    ];
    for (const [what, bytes] of cases) {
      const basketId = uniqueId('not-pdf');
      const res = await term.pos('POST', `/baskets/${basketId}`, {
        body: { ...receiptBasket(false), BillPdf: bytes.toString('base64') },
      });
      expect(res.statusCode, what).toBe(400);
      expect(res.json(), what).toMatchObject({ ErrorId: 11015 });
      const stored = await t.database.db
        .selectFrom('baskets')
        .select('basket_id')
        .where('basket_id', '=', basketId)
        .execute();
      expect(stored, what).toEqual([]);
    }
    // A PDF with whitespace after its %%EOF is one.
    const ok = await term.pos('POST', `/baskets/${uniqueId('pdf')}`, {
      body: {
        ...receiptBasket(false),
        BillPdf: Buffer.concat([PDF, Buffer.from('\r\n\n')]).toString('base64'),
      },
    });
    expect(ok.statusCode, ok.body).toBe(200);
  });
});
