import { foundation } from './0001-foundation.js';
import { cards } from './0003-cards.js';
import { basketWrite } from './0005-basket-write.js';
import { loyalty } from './0006-loyalty.js';
import type { Migration } from './migration.js';

/** Every migration, oldest first. A new one is appended here; a shipped one never changes. */
export const migrations: readonly Migration[] = [foundation, cards, basketWrite, loyalty];
