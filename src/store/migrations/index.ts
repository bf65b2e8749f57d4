import { foundation } from './0001-foundation.js';
import type { Migration } from './migration.js';
import { sortiment } from './0002-sortiment.js';

/** Every migration, oldest first. A new one is appended here; a shipped one never changes. */
export const migrations: readonly Migration[] = [foundation, sortiment];
