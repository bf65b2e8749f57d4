import type { Migration } from './migration.js';

/**
 * Failed authentications per client address (and the consumer portal's sign-in link requests per
 * address), kept in the database as well as in each process, so that instances sharing the
 * database count an address's failures together (docs/decisions.md, "Throttles per client address
 * shared by the instances"). A row lives until its window ends; expired rows are deleted as new
 * windows are written.
 */
export const addressFailures: Migration = {
  name: '0053-address-failures',
  statements: [
    `CREATE TABLE address_failures (
       scope text NOT NULL,
       address text NOT NULL,
       window_end timestamptz NOT NULL,
       failures integer NOT NULL,
       PRIMARY KEY (scope, address))`,
    `CREATE INDEX address_failures_window_end ON address_failures (window_end)`,
  ],
};
