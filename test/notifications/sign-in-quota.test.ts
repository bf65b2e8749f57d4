import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SIGN_IN_LINKS_PER_WINDOW,
  createSignInWithinLimit,
  profilesByEmail,
} from '../../src/notifications/consumer-auth.store.js';
import { type TestApp, databases, setupTerminal, startApp } from '../support/harness.js';

// docs/decisions.md, "Consumer portal": at most three sign-in links per profile in 15 minutes.
describe.each(databases)('the sign-in links of a profile, on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(kind);
  });
  afterAll(() => t?.close());

  it('a request that read the clock before another wrote its link still counts that link: no fourth link', async () => {
    const term = await setupTerminal(t);
    const email = `quota-${kind}@example.org`;
    const made = await t.admin('POST', `/merchants/${encodeURIComponent(term.serviceUserName)}/profiles`, {
      fullName: 'Quota',
      email,
    });
    expect(made.statusCode, made.body).toBe(201);
    const [profile] = await profilesByEmail(t.database.db, email);
    if (!profile) throw new Error('no profile');
    const now = t.clock.nowMs();
    // Links are written after the answers, side by side: the one that read the clock first may
    // take the profile's lock last, after links written a millisecond later.
    for (let i = 0; i < SIGN_IN_LINKS_PER_WINDOW; i += 1)
      expect(await createSignInWithinLimit(t.database.db, profile, now + 1)).not.toBeNull();
    expect(await createSignInWithinLimit(t.database.db, profile, now)).toBeNull();
    const links = await t.database.db
      .selectFrom('consumer_sign_ins')
      .select('token_sha256')
      .where('profile_id', '=', profile.profileId)
      .execute();
    expect(links).toHaveLength(SIGN_IN_LINKS_PER_WINDOW);
  });
});
