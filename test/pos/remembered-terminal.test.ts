import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { type AuthenticatedUnit, TerminalAuth, createTerminalCache } from '../../src/merchants/terminal.js';
import type { DB } from '../../src/store/schema.js';

const NOW = Date.UTC(2026, 11, 2, 10);
const credentials = { devKey: 'dk-till-vendor', unitId: 'till-1' };
const unit: AuthenticatedUnit = {
  devKeyId: 1,
  unitId: credentials.unitId,
  merchantId: 1,
  outletId: 1,
  sortimentId: null,
  activated: true,
  checksumSecret: 'secret',
  currency: 'EUR',
  timeZone: 'Europe/Berlin',
  rulesVersion: 1,
  requireSecurityTokenV2: false,
  requireTransactionId: false,
};

/** Terminal authentication whose database answers nothing: a lookup would fail loudly. */
function rememberingAuth(): TerminalAuth {
  const noDatabase = new Proxy({} as Kysely<DB>, {
    get() {
      throw new Error('the terminal was looked up again');
    },
  });
  const cache = createTerminalCache();
  cache.set(`${credentials.devKey}\u0000${credentials.unitId}`, unit, NOW);
  return new TerminalAuth(noDatabase, { nowMs: () => NOW }, cache);
}

/**
 * A till's balance booking or grant starts from the terminal remembered from its last call; a
 * failure that is the terminal's (revoked, deactivated, a rotated secret) is decided again on a fresh
 * lookup, but the database's own trouble is not the terminal's doing: the till gets its answer at
 * once, and waits once, not twice (docs/decisions.md, "A row locked for long", "A statement's limit").
 */
describe('a booking started from a remembered terminal', () => {
  const troubles: [string, object][] = [
    [
      "a statement past the database's limit (57014)",
      { code: '57014', message: 'canceling statement due to statement timeout' },
    ],
    ['a row another session held past the wait (55P03)', { code: '55P03', message: 'could not obtain lock' }],
    ['a full disk (53100)', { code: '53100', message: 'could not extend file' }],
    ['a lost connection', { code: 'ECONNRESET', message: 'read ECONNRESET' }],
  ];

  it.each(troubles)(
    'that fails on %s answers at once, without looking the terminal up again',
    async (_, trouble) => {
      const auth = rememberingAuth();
      let calls = 0;
      const failure = Object.assign(new Error('database'), trouble);
      const answer = auth.onRemembered(
        credentials,
        true,
        () => {
          calls += 1;
          return Promise.reject(failure);
        },
        () => false,
      );
      await expect(answer).rejects.toBe(failure);
      expect(calls).toBe(1);
    },
  );

  it("that finds the terminal changed is decided again on a fresh lookup (here: the lookup's own failure)", async () => {
    const auth = rememberingAuth();
    const changed = new Error('terminal changed');
    const answer = auth.onRemembered(
      credentials,
      true,
      () => Promise.reject(changed),
      (err) => err === changed,
    );
    await expect(answer).rejects.toThrow('the terminal was looked up again');
  });
});
