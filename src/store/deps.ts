import type { Kysely } from 'kysely';
import type { Clock } from '../shared/clock.js';
import type { DB } from './schema.js';

/**
 * What every use case of the domain works with, built once by the composition root
 * (src/services.ts) and passed as its first argument: the database and the clock. Use cases read
 * the time from `clock`; store functions take explicit timestamps; pure code takes `now` as an
 * argument. A domain adds what else its use cases need (`BasketDeps`, `CardDeps`, ...).
 */
export interface Deps {
  readonly db: Kysely<DB>;
  readonly clock: Clock;
}
