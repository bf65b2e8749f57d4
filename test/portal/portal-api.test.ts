import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offsetSegments } from '../../src/reports/dashboard-period.store.js';
import { tokens } from '../cards/cards-support.js';
import {
  type TestApp,
  type Terminal,
  databases,
  posCall,
  setupTerminal,
  startApp,
} from '../support/harness.js';
import { basket, portalCall, portalSession, portalSignIn } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';

describe.each(databases)('the merchant portal API (%s)', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let users: string;

  const signIn = (email: string, password = PASSWORD) => portalSignIn(t, email, password);
  const session = (email: string) => portalSession(t, email, PASSWORD);
  const call = (s: { cookie: string; csrf?: string }, method: string, url: string, payload?: object) =>
    portalCall(t, s, method, url, payload);

  beforeAll(async () => {
    t = await startApp(kind, { publicBaseUrl: 'https://portal.example.test' });
    term = await setupTerminal(t);
    users = `/merchants/${encodeURIComponent(term.serviceUserName)}/portalUsers`;
  });
  afterAll(() => t?.close());

  it('portalUsers: the first user is an owner, later ones staff; passwords are stored as scrypt hashes of the configured cost', async () => {
    const first = await t.admin('POST', users, { email: `Owner-${kind}@Example.test`, password: PASSWORD });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({ email: `owner-${kind}@example.test`, role: 'owner' });
    const second = await t.admin('POST', users, { email: `staff-${kind}@example.test`, password: PASSWORD });
    expect(second.json()).toMatchObject({ role: 'staff' });
    const row = await t.database.db
      .selectFrom('portal_users')
      .select('password_hash')
      .where('email', '=', `owner-${kind}@example.test`)
      .executeTakeFirstOrThrow();
    // At the test apps' cost; portal-password.test.ts holds the service's own.
    expect(row.password_hash).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(row.password_hash).not.toContain(PASSWORD);
  });

  it('portalUsers.error: a taken e-mail is 409, a short password 400, an unknown merchant 404', async () => {
    const again = await t.admin('POST', users, { email: `owner-${kind}@example.test`, password: PASSWORD });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: { code: 'portal_user_exists' } });
    const short = await t.admin('POST', users, { email: `short-${kind}@example.test`, password: 'short' });
    expect(short.statusCode).toBe(400);
    expect(short.json()).toMatchObject({ error: { code: 'password_too_short' } });
    const unknown = await t.admin('POST', '/merchants/nobody-here/portalUsers', {
      email: 'x@example.test',
      password: PASSWORD,
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('colleagues: an owner invites a colleague, staff unless a role is given, who signs in at once; staff may not invite', async () => {
    const owner = await session(`owner-${kind}@example.test`);
    const made = await call(owner, 'POST', '/users', {
      email: `Barista-${kind}@Example.test`,
      password: 'espresso-every-morning',
      lang: 'de',
    });
    expect(made.statusCode, made.body).toBe(201);
    expect(made.json()).toEqual({
      id: expect.any(Number),
      email: `barista-${kind}@example.test`,
      role: 'staff',
      // A first password given: nothing is mailed.
      invited: false,
    });
    expect((await signIn(`barista-${kind}@example.test`, 'espresso-every-morning')).statusCode).toBe(200);
    const staff = await session(`staff-${kind}@example.test`);
    const refused = await call(staff, 'POST', '/users', {
      email: `cashier-${kind}@example.test`,
      password: PASSWORD,
    });
    expect([refused.statusCode, refused.json().error.code]).toEqual([403, 'role_forbidden']);
    expect((await signIn(`cashier-${kind}@example.test`)).statusCode).toBe(401);
  });

  it('terminals: staff bring a newly registered till into service and it uploads; only an owner takes it out, and it is refused (1042)', async () => {
    // A second till of the merchant registers itself; nobody has activated it yet.
    const registered = await t.app.inject({
      method: 'GET',
      url: `/api/pos/v3/trackingUnits?serviceUserName=${encodeURIComponent(term.serviceUserName)}&outletId=${term.outletId}&instanceName=Till%202`,
      headers: { devkey: term.devKey, accept: 'application/json' },
    });
    const till = registered.json() as { trackingUnitId: string; checksumSecret: string };
    const upload = (basketId: string) =>
      posCall(t, { ...till, devKey: term.devKey }, 'POST', `/baskets/${basketId}`, {
        body: basket(t.clock.nowMs()),
      });
    const staff = await session(`staff-${kind}@example.test`);
    const owner = await session(`owner-${kind}@example.test`);
    const listed = (await call(staff, 'GET', '/terminals?limit=100')).json().data as {
      trackingUnitId: string;
      activated: boolean;
    }[];
    expect(listed.find((u) => u.trackingUnitId === till.trackingUnitId)).toMatchObject({
      instanceName: 'Till 2',
      outletId: term.outletId,
      activated: false,
      deactivated: false,
      lastSeen: null,
    });
    // The terminals page tells a till stopped by the owner from one never activated.
    const stateOf = async (trackingUnitId: string) => {
      const page = await t.app.inject({
        method: 'GET',
        url: '/portal/terminals',
        headers: { cookie: owner.cookie },
      });
      const row = page.body.slice(page.body.indexOf(`data-terminal="${trackingUnitId}"`));
      return /class="badge[^"]*">([^<]*)</.exec(row.slice(0, row.indexOf('</tr>')))?.[1];
    };
    expect(await stateOf(till.trackingUnitId)).toBe('Not activated');
    const on = await call(staff, 'POST', `/terminals/${till.trackingUnitId}/activate`);
    expect(on.statusCode, on.body).toBe(200);
    expect(on.json()).toMatchObject({ trackingUnitId: till.trackingUnitId, activated: true });
    expect((await upload('T2-1')).statusCode).toBe(200);
    const refused = await call(staff, 'POST', `/terminals/${till.trackingUnitId}/deactivate`);
    expect([refused.statusCode, refused.json().error.code]).toEqual([403, 'role_forbidden']);
    const off = await call(owner, 'POST', `/terminals/${till.trackingUnitId}/deactivate`);
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json()).toMatchObject({
      trackingUnitId: till.trackingUnitId,
      activated: false,
      deactivated: true,
    });
    const after = await upload('T2-2');
    expect([after.statusCode, after.json().ErrorId]).toEqual([403, 1042]);
    expect(await stateOf(till.trackingUnitId)).toBe('Deactivated');
    const on2 = await call(owner, 'POST', `/terminals/${till.trackingUnitId}/activate`);
    expect(on2.json()).toMatchObject({ activated: true, deactivated: false });
    expect(await stateOf(till.trackingUnitId)).toBe('Active');
  });

  it('session cookie: http-only, SameSite=Lax, Secure behind https, its 12 hours as Max-Age; only its hash is stored', async () => {
    const res = await signIn(`owner-${kind}@example.test`);
    const cookie = String(res.headers['set-cookie']);
    // Max-Age is counted by the browser from the cookie's arrival: a device whose clock is off by
    // more than the session's life keeps its session.
    const expires = new Date(t.clock.ms + 12 * 3_600_000).toUTCString();
    expect(cookie).toMatch(
      /^punchcard_portal=[A-Za-z0-9_-]{43}; Path=\/portal; HttpOnly; SameSite=Lax; Secure; Max-Age=43200; Expires=/,
    );
    expect(cookie.endsWith(`; Expires=${expires}`)).toBe(true);
    const token = cookie.split(';')[0]?.split('=')[1] ?? '';
    const stored = await t.database.db.selectFrom('portal_sessions').select('token_sha256').execute();
    expect(stored.map((s) => s.token_sha256)).not.toContain(token);
    expect(stored.every((s) => /^[0-9a-f]{64}$/.test(s.token_sha256))).toBe(true);
  });

  it('sign-out ends the session on the server: the same cookie is refused afterwards (not_signed_in)', async () => {
    const s = await session(`owner-${kind}@example.test`);
    expect((await call(s, 'GET', '/me')).statusCode).toBe(200);
    expect((await call(s, 'DELETE', '/session')).statusCode).toBe(204);
    const after = await call(s, 'GET', '/me');
    expect(after.statusCode).toBe(401);
    expect(after.json()).toMatchObject({ error: { code: 'not_signed_in' } });
  });

  it('a session expires after 12 hours', async () => {
    const s = await session(`owner-${kind}@example.test`);
    t.clock.advance(12 * 3_600_000 + 1);
    expect((await call(s, 'GET', '/terminals')).statusCode).toBe(401);
  });

  it('lock-out: after 5 failed sign-ins the account is locked for 15 minutes, even for the right password', async () => {
    const email = `lock-${kind}@example.test`;
    await t.admin('POST', users, { email, password: PASSWORD });
    for (let i = 1; i <= 4; i += 1) {
      const res = await signIn(email, 'wrong password');
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ error: { code: 'sign_in_failed' } });
    }
    const fifth = await signIn(email, 'wrong password');
    expect(fifth.statusCode).toBe(429);
    expect(fifth.json()).toMatchObject({ error: { code: 'sign_in_locked' } });
    expect((await signIn(email)).statusCode).toBe(429);
    t.clock.advance(15 * 60_000 - 1000);
    expect((await signIn(email)).statusCode).toBe(429);
    t.clock.advance(2000);
    expect((await signIn(email)).statusCode).toBe(200);
    // An unknown e-mail answers exactly like a wrong password.
    const unknown = await signIn(`nobody-${kind}@example.test`);
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json()).toMatchObject({ error: { code: 'sign_in_failed' } });
  });

  it('a balance is corrected with a reason: a posting on the ledger, shown with its reason; staff may not', async () => {
    const card = `corr-${kind}`;
    await tokens(term).register(card);
    await tokens(term).add(card, '10');
    const owner = await session(`owner-${kind}@example.test`);
    const staff = await session(`staff-${kind}@example.test`);
    const refused = await call(staff, 'POST', `/cards/${card}/corrections`, {
      amount: '-2.50',
      reason: 'Till miscount',
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ error: { code: 'role_forbidden' } });
    const lockByStaff = await call(staff, 'POST', `/cards/${card}/lock`);
    expect(lockByStaff.statusCode).toBe(403);
    const res = await call(owner, 'POST', `/cards/${card}/corrections`, {
      amount: '-2.50',
      reason: 'Till miscount',
    });
    expect(res.statusCode).toBe(200);
    const body = res.json() as {
      balanceMinor: number;
      transfers: { kind: string; amountMinor: number; reason: string | null }[];
    };
    expect(body.balanceMinor).toBe(750);
    expect(body.transfers[0]).toMatchObject({
      kind: 'withdrawal',
      amountMinor: 250,
      reason: 'Till miscount',
    });
    expect(body.transfers[1]).toMatchObject({ kind: 'top_up', amountMinor: 1000, reason: null });
    // On the ledger: the top-up, then the correction as a withdrawal authorised by the operator side.
    const ledger = await t.admin(
      'GET',
      `/merchants/${encodeURIComponent(term.serviceUserName)}/transfers?tokenId=${card}`,
    );
    expect(
      (ledger.json().data as { kind: string; amount: number; authorisedBy: string }[]).map((x) => [
        x.kind,
        x.amount,
        x.authorisedBy,
      ]),
    ).toEqual([
      ['withdrawal', 250, 'operator'],
      ['top_up', 1000, expect.any(String)],
    ]);
    const tooMuch = await call(owner, 'POST', `/cards/${card}/corrections`, {
      amount: '-100',
      reason: 'Too much',
    });
    expect(tooMuch.statusCode).toBe(400);
    expect(tooMuch.json()).toMatchObject({ error: { code: 'insufficient_balance' } });
    // A refused correction leaves no reason behind: the one reason kept is the booked one's.
    const reasons = await t.database.db.selectFrom('portal_corrections').select('reason').execute();
    expect(reasons.map((r) => r.reason)).not.toContain('Too much');
  });

  it('dashboard: a range of more than 366 days or an impossible date is refused; CSV has a header line', async () => {
    const s = await session(`owner-${kind}@example.test`);
    const long = await call(s, 'GET', '/dashboard?from=2025-01-01&to=2026-06-01');
    expect(long.statusCode).toBe(400);
    expect((await call(s, 'GET', '/dashboard?from=2026-02-30&to=2026-03-01')).statusCode).toBe(400);
    expect((await call(s, 'GET', '/dashboard?from=2026-03-02&to=2026-03-01')).statusCode).toBe(400);
    const csv = await call(s, 'GET', '/dashboard.csv?from=2026-03-01&to=2026-03-02');
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body).toBe(
      'day,outletId,baskets,openBaskets,sales,rewards,returns,returnsValue,revenue,pointsEarned,pointsRedeemed,withTotalValue,totalValueDiffers,currency\r\n',
    );
  });

  it("dashboard days are the merchant's local days, across the change to daylight saving time", async () => {
    // Europe/Berlin moves from +01:00 to +02:00 at 2026-03-29 01:00 UTC.
    const segments = offsetSegments(
      'Europe/Berlin',
      Date.parse('2026-03-27T00:00:00Z'),
      Date.parse('2026-03-31T00:00:00Z'),
    );
    expect(segments).toEqual([
      { fromMs: Date.parse('2026-03-27T00:00:00Z'), offset: 3600 },
      { fromMs: Date.parse('2026-03-29T01:00:00Z'), offset: 7200 },
    ]);
    // Two baskets at 23:30 local time on either side of the change count for their local day.
    const upload = (id: string, timestamp: string) =>
      term.pos('POST', `/baskets/${id}`, {
        body: {
          Timestamp: timestamp,
          HasDiscounts: false,
          TotalValue: 1,
          Positions: [{ PositionId: 1, ProductId: 'x', Unit: 0, Amount: 1, CurrentGrossPrice: 1 }],
        },
      });
    expect((await upload('dst-1', '2026-03-28T23:30:00+01:00')).statusCode).toBe(200);
    expect((await upload('dst-2', '2026-03-29T23:30:00+02:00')).statusCode).toBe(200);
    const s = await session(`owner-${kind}@example.test`);
    const d = await call(s, 'GET', '/dashboard?from=2026-03-28&to=2026-03-30');
    // Uploaded and not granted: open baskets, on their local day.
    const days = (d.json() as { days: { day: string; openBaskets: number }[] }).days;
    expect(days.map((x) => [x.day, x.openBaskets])).toEqual([
      ['2026-03-28', 1],
      ['2026-03-29', 1],
    ]);
  });

  it("a one-time password is issued for a card's consumer; a card without a profile or of another merchant is unknown", async () => {
    const owner = await session(`owner-${kind}@example.test`);
    const profile = await t.admin('POST', `/merchants/${encodeURIComponent(term.serviceUserName)}/profiles`, {
      fullName: 'Ada Muster',
      email: `ada-${kind}@example.org`,
    });
    const profileId = (profile.json() as { id: number }).id;
    const card = `otp-${kind}`;
    expect(
      (await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: card, tokenType: 0 })).statusCode,
    ).toBe(200);
    const res = await call(owner, 'POST', `/cards/${card}/otps`);
    expect(res.statusCode).toBe(201);
    expect((res.json() as { otp: string }).otp).toMatch(/^[0-9]{8}$/);
    const bare = `bare-${kind}`;
    await tokens(term).register(bare);
    expect((await call(owner, 'POST', `/cards/${bare}/otps`)).statusCode).toBe(404);
    const other = await setupTerminal(t);
    const foreign = `foreign-${kind}`;
    await tokens(other).register(foreign);
    const answer = await call(owner, 'GET', `/cards/${foreign}`);
    expect(answer.statusCode).toBe(404);
    expect(answer.json()).toMatchObject({ error: { code: 'card_unknown' } });
  });

  it('pages escape what merchants and tills wrote: a campaign named like a script is shown as text', async () => {
    const name = '<script>alert(1)</script> & "quotes"';
    await t.admin('POST', `/merchants/${encodeURIComponent(term.serviceUserName)}/campaigns`, {
      name,
      type: 'bill',
      discount: { amount: 1 },
    });
    const s = await session(`owner-${kind}@example.test`);
    const page = await t.app.inject({
      method: 'GET',
      url: '/portal/campaigns',
      headers: { cookie: s.cookie },
    });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.body).not.toContain('<script>alert(1)</script>');
    expect(page.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;');
  });

  it("the campaigns list shows a campaign's validity in the merchant's time zone, not as the API's text", async () => {
    const created = await t.admin(
      'POST',
      `/merchants/${encodeURIComponent(term.serviceUserName)}/campaigns`,
      {
        name: 'Winter weeks',
        type: 'bill',
        discount: { amount: 1 },
        validFrom: '2027-01-13T07:00:00.000Z',
        validTo: '2027-02-01T00:00:00+01:00',
      },
    );
    expect(created.statusCode, created.body).toBe(201);
    const s = await session(`owner-${kind}@example.test`);
    const page = await t.app.inject({
      method: 'GET',
      url: '/portal/campaigns',
      headers: { cookie: s.cookie },
    });
    const row = page.body.slice(page.body.indexOf('Winter weeks'));
    // Berlin: 08:00 on 13 January; the end at midnight of 1 February.
    expect(row.slice(0, 600)).toContain('13 Jan 2027, 08:00');
    expect(row.slice(0, 600)).toContain('1 Feb 2027, 00:00');
    expect(page.body).not.toContain('2027-01-13T07:00:00.000Z');
  });

  it('pages without a session send the browser to the sign-in page, never to another site', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/portal/dashboard?from=2026-01-01' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/portal/signin?next=%2Fportal%2Fdashboard%3Ffrom%3D2026-01-01');
    const evil = await t.app.inject({ method: 'GET', url: '/portal/signin?next=https://evil.example/' });
    expect(evil.body).toContain('data-next="/portal/dashboard"');
  });

  it("the portal's redirects send the pages' headers too: never framed, never sniffed", async () => {
    for (const url of ['/portal', '/portal/', '/portal/dashboard']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(303);
      expect(res.headers['content-security-policy'], url).toContain("frame-ancestors 'none'");
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['x-frame-options'], url).toBe('DENY');
    }
  });

  it('consumers: found by name or e-mail with accented letters read as plain ones and umlauts as their two-letter spellings, whatever the case', async () => {
    const made: Record<string, number> = {};
    for (const [key, fullName, email] of [
      ['zoe', 'Zoë Müller-Łukasz', 'zoe@example.test'],
      ['jose', 'José Núñez', 'jose.nunez@example.test'],
      ['plain', 'Mullerin Plain', null],
      ['weiss', 'Jürgen Weiß', null],
      ['hans', 'Hans Mueller', null],
    ] as const) {
      const p = await t.admin('POST', `/merchants/${encodeURIComponent(term.serviceUserName)}/profiles`, {
        fullName,
        ...(email ? { email } : {}),
      });
      expect(p.statusCode, p.body).toBe(201);
      made[key] = (p.json() as { id: number }).id;
    }
    const s = await session(`owner-${kind}@example.test`);
    const found = async (q: string) => {
      const res = await call(s, 'GET', `/consumers?q=${encodeURIComponent(q)}`);
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as { data: { profileId: number }[] }).data.map((c) => c.profileId);
    };
    expect(await found('muller')).toEqual([made.zoe, made.plain]);
    expect(await found('MÜLLER-')).toEqual([made.zoe]);
    expect(await found('zoe m')).toEqual([made.zoe]);
    expect(await found('lukasz')).toEqual([made.zoe]);
    expect(await found('jose nunez')).toEqual([made.jose]);
    expect(await found('NÚÑEZ')).toEqual([made.jose]);
    expect(await found('example.test')).toContain(made.jose);
    expect(await found('zoë x')).toEqual([]);
    // German's two-letter spellings of the umlauts and ß, both ways.
    expect(await found('mueller')).toEqual([made.zoe, made.hans]);
    expect(await found('MÜLLER')).toEqual([made.zoe, made.plain, made.hans]);
    expect(await found('weiss')).toEqual([made.weiss]);
    expect(await found('juergen weiß')).toEqual([made.weiss]);
    expect(await found('jurgen weis')).toEqual([]);
  });

  it('consumers: found by name a page at a time, by id, each once; a bad cursor is 400', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const p = await t.admin('POST', `/merchants/${encodeURIComponent(term.serviceUserName)}/profiles`, {
        fullName: `Pager Person ${i}`,
      });
      expect(p.statusCode).toBe(201);
      ids.push((p.json() as { id: number }).id);
    }
    const s = await session(`owner-${kind}@example.test`);
    const first = await call(s, 'GET', '/consumers?q=pager&limit=2');
    expect(first.statusCode, first.body).toBe(200);
    const page1 = first.json() as { data: { profileId: number }[]; hasMore: boolean; nextCursor: string };
    expect(page1.data.map((c) => c.profileId)).toEqual(ids.slice(0, 2));
    expect(page1.hasMore).toBe(true);
    const second = await call(s, 'GET', `/consumers?q=pager&limit=2&cursor=${page1.nextCursor}`);
    expect(second.json()).toMatchObject({ data: [{ profileId: ids[2] }], hasMore: false, nextCursor: null });
    const bad = await call(s, 'GET', '/consumers?q=pager&cursor=W10');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: { code: 'invalid_cursor' } });
    const page = await t.app.inject({
      method: 'GET',
      url: '/portal/cards?q=pager',
      headers: { cookie: s.cookie },
    });
    expect(page.body).toContain('Pager Person 2');
  });

  it("consumers: without q, every one of the merchant's customers, by id, a page at a time, none of another merchant's; the page lists them 50 at a time", async () => {
    const shop = await setupTerminal(t);
    const shopUsers = `/merchants/${encodeURIComponent(shop.serviceUserName)}/portalUsers`;
    expect(
      (await t.admin('POST', shopUsers, { email: `owner-${kind}@all.test`, password: PASSWORD })).statusCode,
    ).toBe(201);
    const ids: number[] = [];
    for (let i = 0; i < 51; i++) {
      const p = await t.admin('POST', `/merchants/${encodeURIComponent(shop.serviceUserName)}/profiles`, {
        fullName: `Stammgast ${String(i).padStart(2, '0')}`,
      });
      expect(p.statusCode).toBe(201);
      ids.push((p.json() as { id: number }).id);
    }
    const s = await session(`owner-${kind}@all.test`);
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const res = await call(s, 'GET', `/consumers?limit=20${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json() as { data: { profileId: number }[]; nextCursor: string | null };
      seen.push(...page.data.map((c) => c.profileId));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(seen).toEqual(ids);
    expect((await call(s, 'GET', '/consumers?q=a')).statusCode).toBe(400);

    const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie: s.cookie } });
    const first = await get('/portal/cards?all=1');
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain('Stammgast 00');
    expect(first.body).toContain('Stammgast 49');
    expect(first.body).not.toContain('Stammgast 50');
    expect(first.body).not.toContain('Pager Person');
    const more = /href="(\/portal\/cards\?all=1&amp;consumersCursor=[^"#]+)#consumers"/.exec(first.body)?.[1];
    expect(more).toBeDefined();
    const second = await get((more ?? '').replace(/&amp;/g, '&'));
    expect(second.statusCode).toBe(200);
    expect(second.body).toContain('Stammgast 50');
    expect(second.body).not.toContain('Stammgast 49');
    expect(second.body).toContain('href="/portal/cards?all=1#consumers"');
    // A cursor the list cannot read offers the first page, not "no customers".
    const bad = await get('/portal/cards?all=1&consumersCursor=W10');
    expect(bad.statusCode).toBe(200);
    expect(bad.body).not.toContain('Stammgast');
    expect(bad.body).not.toContain('No customers yet.');
    expect(bad.body).toContain('href="/portal/cards?all=1#consumers"');
  });
});
