import type { Migration } from './migration.js';

/**
 * A POS withdrawal from a card that pays from a profile's account respects what the profile's
 * live checkout reservations hold (docs/decisions.md, "Balance, reservations, top-ups, refunds").
 *
 * `post_transfer` now, for a withdrawal from a profile's account, first locks the profile row as
 * every checkout change of the profile does (so a reservation or order of the same profile waits
 * for it, and it for them), then requires the balance to cover the amount plus what the live
 * reservations (active, not expired at the booking's time) still hold. Refused for that reason
 * alone, it answers transfer id -1 and books nothing.
 *
 * The function this migration made or changed is kept in its file,
 * `src/ledger/sql/post_transfer.sql`, which the migrator applies whenever it changes
 * (docs/architecture.md, "The stored-function layer").
 */
export const withdrawalReservations: Migration = {
  name: '0017-withdrawal-reservations',
  statements: [`CREATE INDEX profiles_account ON profiles (account_id)`],
};
