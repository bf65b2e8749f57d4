import type { Kysely } from 'kysely';
import type { RuleSetCache } from '../campaigns/live-rules.store.js';
import type { Clock } from '../shared/clock.js';
import type { DB } from '../store/schema.js';
import type { BasketWriter } from './basket-write.store.js';
import type { GrantWriter } from './grant-write.store.js';

/**
 * What the basket use cases work with, built once by the composition root (src/services.ts) and
 * passed as their first argument: the database, the clock (time is an input, never read from the
 * system here), the group-commit writers of uploads and grants and the merchants' built rule sets.
 */
export interface BasketDeps {
  readonly db: Kysely<DB>;
  readonly clock: Clock;
  readonly writer: BasketWriter;
  /** The grants' group-commit writer. */
  readonly grants: Pick<GrantWriter, 'write'>;
  readonly ruleSets: RuleSetCache;
  /** Wakes the outbox dispatcher after a transaction that queued a message (none in some tests). */
  readonly nudgeOutbox?: () => void;
}
