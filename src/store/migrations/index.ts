import { foundation } from './0001-foundation.js';
import { campaigns } from './0004-campaigns.js';
import type { Migration } from './migration.js';

/** Every migration, oldest first. A new one is appended here; a shipped one never changes. */
export const migrations: readonly Migration[] = [foundation, campaigns];
