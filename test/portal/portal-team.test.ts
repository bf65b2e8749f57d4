import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokens } from '../cards/cards-support.js';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';
import { type PortalSession, portalCall, portalSession, portalSignIn } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';

interface Member {
  id: number;
  email: string;
  role: 'owner' | 'staff';
  lastSignedInAt: string | null;
  locked: boolean;
  you: boolean;
}

/**
 * docs/decisions.md, "The team: colleagues and passwords": an owner sees who has access to the
 * merchant's portal, changes a colleague's role, sets a forgotten password and removes a colleague
 * who left, whose access then ends at once; each user changes their own password with the current
 * one; the merchant always keeps an owner.
 */
describe.each(databases)("the merchant's team in the portal (%s)", (kind) => {
  let t: TestApp;
  let term: Terminal;
  let other: Terminal;
  const email = (who: string) => `${who}-${kind}@team.test`;
  const call = (s: PortalSession, method: string, url: string, payload?: object) =>
    portalCall(t, s, method, url, payload);
  const team = async (s: PortalSession) => {
    const res = await call(s, 'GET', '/users?limit=100');
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { data: Member[] }).data;
  };
  const idOf = async (s: PortalSession, who: string) =>
    (await team(s)).find((m) => m.email === email(who))?.id ?? 0;
  const invite = async (owner: PortalSession, who: string, role?: 'owner' | 'staff') => {
    const res = await call(owner, 'POST', '/users', { email: email(who), password: PASSWORD, role });
    expect(res.statusCode, res.body).toBe(201);
    return (res.json() as { id: number }).id;
  };

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    other = await setupTerminal(t);
    for (const [terminal, who] of [
      [term, 'owner'],
      [other, 'elsewhere'],
    ] as const) {
      const users = `/merchants/${encodeURIComponent(terminal.serviceUserName)}/portalUsers`;
      expect((await t.admin('POST', users, { email: email(who), password: PASSWORD })).statusCode).toBe(201);
    }
  });
  afterAll(() => t?.close());

  it('a colleague is added and signs in on one clock: added when the owner added them, signed in after', async () => {
    const now = t.clock.ms;
    try {
      // Ahead of the clock, so that the owner's sign-in here falls after their own creation.
      const addedAt = Math.floor(now / 86_400_000) * 86_400_000 + 26 * 86_400_000 + 9 * 3_600_000;
      t.clock.ms = addedAt;
      const owner = await portalSession(t, email('owner'), PASSWORD);
      const id = await invite(owner, 'clara');
      t.clock.ms = addedAt + 3_600_000;
      await portalSession(t, email('clara'), PASSWORD);
      const res = await call(owner, 'GET', '/users?limit=100');
      const clara = (res.json() as { data: (Member & { createdAt: string })[] }).data.find(
        (m) => m.id === id,
      );
      expect(clara).toMatchObject({
        createdAt: new Date(addedAt).toISOString(),
        lastSignedInAt: new Date(addedAt + 3_600_000).toISOString(),
      });
      expect((await call(owner, 'DELETE', `/users/${id}`)).statusCode).toBe(204);
    } finally {
      t.clock.ms = now;
    }
  });

  it('every user sees the team, oldest first, with the last sign-in and a lock-out; staff change nothing of it', async () => {
    const owner = await portalSession(t, email('owner'), PASSWORD);
    await invite(owner, 'anna');
    await invite(owner, 'ben');
    const anna = await portalSession(t, email('anna'), PASSWORD);
    for (let i = 0; i < 5; i++) await portalSignIn(t, email('ben'), 'not the password');

    const seen = await team(anna);
    expect(seen.map((m) => [m.email, m.role, m.you])).toEqual([
      [email('owner'), 'owner', false],
      [email('anna'), 'staff', true],
      [email('ben'), 'staff', false],
    ]);
    expect(seen.find((m) => m.email === email('ben'))).toMatchObject({ lastSignedInAt: null, locked: true });
    expect(Date.parse(seen[1]?.lastSignedInAt ?? '')).toBe(t.clock.nowMs());
    // A page at a time, as every list.
    const first = (await call(anna, 'GET', '/users?limit=2')).json() as {
      data: Member[];
      hasMore: boolean;
      nextCursor: string;
    };
    expect([first.data.length, first.hasMore]).toEqual([2, true]);
    const rest = (await call(anna, 'GET', `/users?limit=2&cursor=${first.nextCursor}`)).json() as {
      data: Member[];
      nextCursor: string | null;
    };
    expect([rest.data.map((m) => m.email), rest.nextCursor]).toEqual([[email('ben')], null]);
    // Another merchant's users are not in it, and theirs not in the other's.
    const elsewhere = await portalSession(t, email('elsewhere'), PASSWORD);
    expect((await team(elsewhere)).map((m) => m.email)).toEqual([email('elsewhere')]);

    const ben = await idOf(owner, 'ben');
    for (const [method, url, body] of [
      ['PATCH', `/users/${ben}`, { role: 'owner' }],
      ['PUT', `/users/${ben}/password`, { password: 'another-long-password' }],
      ['DELETE', `/users/${ben}`, undefined],
      ['POST', '/users', { email: email('carl'), password: PASSWORD }],
    ] as const) {
      const refused = await call(anna, method, url, body);
      expect(refused.statusCode, `${method} ${url}`).toBe(403);
      expect(refused.json()).toMatchObject({ error: { code: 'role_forbidden' } });
    }
    expect((await team(owner)).map((m) => m.email)).not.toContain(email('carl'));
    expect((await team(owner)).find((m) => m.email === email('ben'))?.role).toBe('staff');
  });

  it('a removed colleague is signed out everywhere at once and cannot sign in; what they did still names them; their e-mail can be invited again', async () => {
    const owner = await portalSession(t, email('owner'), PASSWORD);
    const dora = await invite(owner, 'dora', 'owner');
    const phone = await portalSession(t, email('dora'), PASSWORD);
    const laptop = await portalSession(t, email('dora'), PASSWORD);
    const card = `team-card-${kind}`;
    expect((await tokens(term).register(card)).statusCode).toBe(200);
    const locked = await call(phone, 'POST', `/cards/${card}/lock`, { reason: 'Found on the floor' });
    expect(locked.statusCode, locked.body).toBe(200);

    const removed = await call(owner, 'DELETE', `/users/${dora}`);
    expect(removed.statusCode, removed.body).toBe(204);
    for (const s of [phone, laptop]) {
      const after = await call(s, 'GET', '/me');
      expect(after.statusCode).toBe(401);
      expect(after.json()).toMatchObject({ error: { code: 'not_signed_in' } });
    }
    // Refused as a wrong password is: nothing tells whether the account exists.
    const again = await portalSignIn(t, email('dora'), PASSWORD);
    expect(again.statusCode).toBe(401);
    expect(again.json()).toMatchObject({ error: { code: 'sign_in_failed' } });
    expect((await team(owner)).map((m) => m.email)).not.toContain(email('dora'));
    const rows = await t.database.db
      .selectFrom('portal_sessions')
      .select('token_sha256')
      .where('user_id', '=', dora)
      .execute();
    expect(rows).toEqual([]);

    // The card's history still says who locked it.
    const history = await call(owner, 'GET', `/cards/${card}`);
    expect(history.statusCode).toBe(200);
    expect(JSON.stringify(history.json())).toContain(email('dora'));

    // Removed again, or never there: not found, as another merchant's user is.
    const elsewhere = await portalSession(t, email('elsewhere'), PASSWORD);
    const foreign = (await team(elsewhere))[0]?.id ?? 0;
    for (const id of [dora, foreign, 999_999]) {
      const res = await call(owner, 'DELETE', `/users/${id}`);
      expect(res.statusCode, String(id)).toBe(404);
      expect(res.json()).toMatchObject({ error: { code: 'not_found' } });
    }
    expect((await team(elsewhere)).map((m) => m.email)).toEqual([email('elsewhere')]);

    // Back after a while: invited again under the same e-mail, a new user with a new password.
    const back = await call(owner, 'POST', '/users', {
      email: email('dora'),
      password: 'a-new-long-password',
    });
    expect(back.statusCode, back.body).toBe(201);
    expect((back.json() as { id: number }).id).not.toBe(dora);
    expect((await portalSignIn(t, email('dora'), 'a-new-long-password')).statusCode).toBe(200);
    expect((await portalSignIn(t, email('dora'), PASSWORD)).statusCode).toBe(401);
    // While a user holds the e-mail, it is taken.
    const twice = await call(owner, 'POST', '/users', { email: email('dora'), password: PASSWORD });
    expect(twice.statusCode).toBe(409);
    expect(twice.json()).toMatchObject({ error: { code: 'portal_user_exists' } });
  });

  it("a colleague's role changes with their next request; an owner changes neither their own role nor removes themselves, so an owner always remains", async () => {
    const owner = await portalSession(t, email('owner'), PASSWORD);
    const erik = await invite(owner, 'erik');
    const erikSession = await portalSession(t, email('erik'), PASSWORD);
    const code = `/cards/team-role-${kind}/lock`;
    expect((await call(erikSession, 'POST', code)).statusCode).toBe(403);
    expect((await call(owner, 'PATCH', `/users/${erik}`, { role: 'owner' })).statusCode).toBe(204);
    // The same session, now an owner's: the lock is refused for the unknown card, not for the role.
    const asOwner = await call(erikSession, 'POST', code);
    expect(asOwner.statusCode, asOwner.body).toBe(404);
    expect((await call(erikSession, 'GET', '/me')).json()).toMatchObject({ role: 'owner' });

    const me = await idOf(owner, 'owner');
    for (const [method, url, body] of [
      ['PATCH', `/users/${me}`, { role: 'staff' }],
      ['DELETE', `/users/${me}`, undefined],
      ['PUT', `/users/${me}/password`, { password: 'another-long-password' }],
    ] as const) {
      const res = await call(owner, method, url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(409);
      expect(res.json()).toMatchObject({ error: { code: 'portal_user_self' } });
    }

    // Two owners demoting each other at the same moment: one is done, the other finds its user no
    // longer an owner, and the merchant keeps one.
    const both = await Promise.all([
      call(owner, 'PATCH', `/users/${erik}`, { role: 'staff' }),
      call(erikSession, 'PATCH', `/users/${me}`, { role: 'staff' }),
    ]);
    expect(both.map((r) => r.statusCode).sort()).toEqual([204, 403]);
    const owners = (await team(owner)).filter((m) => m.role === 'owner');
    expect(owners).toHaveLength(1);
    // Put back as it was for the next test.
    if (owners[0]?.email !== email('owner')) {
      expect((await call(erikSession, 'PATCH', `/users/${me}`, { role: 'owner' })).statusCode).toBe(204);
    }
    const refused = await call(owner, 'PATCH', `/users/${erik}`, { role: 'manager' });
    expect(refused.statusCode).toBe(400);
  });

  it('an owner sets a forgotten password: the colleague is signed out and unlocked, the new password signs in', async () => {
    const owner = await portalSession(t, email('owner'), PASSWORD);
    const fred = await invite(owner, 'fred');
    const old = await portalSession(t, email('fred'), PASSWORD);
    for (let i = 0; i < 5; i++) await portalSignIn(t, email('fred'), 'forgot it');
    expect((await portalSignIn(t, email('fred'), PASSWORD)).statusCode).toBe(429);

    const short = await call(owner, 'PUT', `/users/${fred}/password`, { password: 'short' });
    expect(short.statusCode).toBe(400);
    expect(short.json()).toMatchObject({ error: { code: 'password_too_short' } });
    expect((await call(old, 'GET', '/me')).statusCode).toBe(200);

    const set = await call(owner, 'PUT', `/users/${fred}/password`, { password: 'set-by-the-owner' });
    expect(set.statusCode, set.body).toBe(204);
    expect((await call(old, 'GET', '/me')).statusCode).toBe(401);
    expect((await portalSignIn(t, email('fred'), PASSWORD)).statusCode).toBe(401);
    expect((await portalSignIn(t, email('fred'), 'set-by-the-owner')).statusCode).toBe(200);
  });

  it('a user changes their own password with the current one: other sessions end, this one stays; wrong current passwords lock the account', async () => {
    const owner = await portalSession(t, email('owner'), PASSWORD);
    await invite(owner, 'gina');
    const here = await portalSession(t, email('gina'), PASSWORD);
    const there = await portalSession(t, email('gina'), PASSWORD);

    const wrong = await call(here, 'PUT', '/me/password', {
      currentPassword: 'not it',
      newPassword: 'my-own-new-password',
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ error: { code: 'current_password_wrong' } });
    const short = await call(here, 'PUT', '/me/password', {
      currentPassword: PASSWORD,
      newPassword: 'short',
    });
    expect(short.json()).toMatchObject({ error: { code: 'password_too_short' } });

    const changed = await call(here, 'PUT', '/me/password', {
      currentPassword: PASSWORD,
      newPassword: 'my-own-new-password',
    });
    expect(changed.statusCode, changed.body).toBe(204);
    expect((await call(here, 'GET', '/me')).statusCode).toBe(200);
    expect((await call(there, 'GET', '/me')).statusCode).toBe(401);
    expect((await portalSignIn(t, email('gina'), PASSWORD)).statusCode).toBe(401);
    expect((await portalSignIn(t, email('gina'), 'my-own-new-password')).statusCode).toBe(200);

    // A session left open is no way to guess the password: the fifth wrong one locks the account.
    const codes: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await call(here, 'PUT', '/me/password', {
        currentPassword: `guess ${i}`,
        newPassword: 'taken-over-password',
      });
      codes.push((res.json() as { error: { code: string } }).error.code);
    }
    expect(codes).toEqual([...Array(4).fill('current_password_wrong'), 'sign_in_locked']);
    expect((await portalSignIn(t, email('gina'), 'my-own-new-password')).statusCode).toBe(429);
    const locked = await call(here, 'PUT', '/me/password', {
      currentPassword: 'my-own-new-password',
      newPassword: 'taken-over-password',
    });
    expect(locked.statusCode).toBe(429);
  });
  it('an owner invites a colleague by e-mail and sends the invitation again while they have not signed in', async () => {
    const owner = await portalSession(t, email('owner'), PASSWORD);
    const made = await call(owner, 'POST', '/users', { email: email('nina'), lang: 'en' });
    expect(made.statusCode, made.body).toBe(201);
    expect(made.json()).toMatchObject({ invited: true, role: 'staff' });
    const id = (made.json() as { id: number }).id;
    const member = (await team(owner)).find((m) => m.id === id) as Member & { invitationOpenUntil: string };
    expect(member.lastSignedInAt).toBeNull();
    expect(Date.parse(member.invitationOpenUntil)).toBeGreaterThan(t.clock.nowMs());
    const again = await call(owner, 'POST', `/users/${id}/invitation`);
    expect(again.statusCode, again.body).toBe(204);
  });
});
