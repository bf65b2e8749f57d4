import type { Migration } from './migration.js';

/**
 * Each request that takes a checkout Idempotency-Key holds it with a claim of its own (a random
 * token), so that a claim left behind by a request that never finished (its server stopped, its
 * database connection broke) can be taken over once its lease has passed, and the request it
 * belonged to, should it still come to book, finds its claim gone and books nothing
 * (docs/decisions.md, "Idempotency": "A key left in flight"). Rows written before have none.
 */
export const idempotencyClaims: Migration = {
  name: '0052-idempotency-claims',
  statements: [`ALTER TABLE checkout_idempotency_keys ADD COLUMN claim text`],
};
