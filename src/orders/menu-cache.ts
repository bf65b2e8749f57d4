import type { Kysely } from 'kysely';
import { loadArticleGroups } from '../sortiment/article-groups.store.js';
import type { StoredArticle } from '../sortiment/article.js';
import { readMenuArticles } from '../sortiment/menu-articles.store.js';
import { BoundedCache } from '../shared/bounded-cache.js';
import type { DB } from '../store/schema.js';
import type { MenuFacts } from './order-model.js';
import { readMenuFacts as readFacts } from './order.store.js';

/**
 * The menus orders are priced from, remembered per app (docs/decisions.md, "Checkout v1: orders
 * in one statement"). An entry is only a guess: it holds the articles as read under the menu's
 * facts (the sortiment's version and generation, the merchant's rules version), and the order's
 * write re-checks those facts in its own statement. A write that finds them changed books nothing
 * and the order is priced afresh, so no order is ever booked at a price its menu no longer has.
 */

/** Where pricing reads a menu from: the database afresh, or the app's cache. */
export interface MenuSource {
  /** The articles under these PLUs (absent: not in the menu) and the rules version; null: no such menu. */
  articles(
    merchantId: number,
    menuId: number,
    plus: readonly string[],
  ): Promise<{ articles: ReadonlyMap<string, StoredArticle>; rulesVersion: number } | null>;
  /** Each article's groups, nearest first. */
  groups(merchantId: number, menuId: number, plus: readonly string[]): Promise<ReadonlyMap<string, string[]>>;
}

/** Reads every menu afresh (a price quote, which writes nothing that could re-check it). */
export function freshMenus(db: Kysely<DB>): MenuSource {
  return {
    articles: (merchantId, menuId, plus) => readMenuArticles(db, merchantId, menuId, plus),
    groups: (merchantId, menuId, plus) => loadArticleGroups(db, merchantId, menuId, plus),
  };
}

/** Articles per menu entry: past this, the entry starts again empty (a menu ordered from widely). */
const MAX_ARTICLES_PER_MENU = 5_000;

interface MenuEntry {
  readonly facts: MenuFacts;
  /** null: the PLU is not in the menu under these facts. */
  readonly articles: Map<string, StoredArticle | null>;
  readonly groups: Map<string, string[]>;
}

const sameFacts = (a: MenuFacts, b: MenuFacts) =>
  a.sortimentId === b.sortimentId &&
  a.version === b.version &&
  a.currentGen === b.currentGen &&
  a.rulesVersion === b.rulesVersion;

/**
 * The menus of one app, for the 1,000 most recently ordered from. Filling an entry reads the facts
 * first and the articles after: the articles are then at least as new as the facts say, and an
 * entry whose facts still hold at the write is exactly the menu as it is.
 */
export class MenuCache {
  readonly #db: Kysely<DB>;
  readonly #entries: BoundedCache<string, MenuEntry>;

  constructor(db: Kysely<DB>, maxMenus = 1000) {
    this.#db = db;
    this.#entries = new BoundedCache(maxMenus);
  }

  /** Forgets a menu whose facts did not hold at a write. */
  forget(merchantId: number, menuId: number): void {
    this.#entries.delete(`${merchantId} ${menuId}`);
  }

  /**
   * A source for one order: pricing reads through it, `facts()` answers what it relied on, and
   * `remembered()` whether that was an entry kept from before, its facts not read again (a refusal
   * priced from it may come from a menu or a campaign changed since).
   */
  session(): MenuSource & { facts(): MenuFacts | null; remembered(): boolean } {
    let facts: MenuFacts | null = null;
    let remembered = false;
    return {
      facts: () => facts,
      remembered: () => remembered,
      articles: async (merchantId, menuId, plus) => {
        const found = await this.#entry(merchantId, menuId, plus);
        if (!found) return null;
        const { entry } = found;
        remembered = found.remembered;
        facts = entry.facts;
        const articles = new Map<string, StoredArticle>();
        for (const plu of plus) {
          const a = entry.articles.get(plu);
          if (a) articles.set(plu, a);
        }
        return { articles, rulesVersion: entry.facts.rulesVersion };
      },
      groups: async (merchantId, menuId, plus) => {
        const entry = this.#entries.get(`${merchantId} ${menuId}`);
        const usable = entry && facts !== null && sameFacts(entry.facts, facts) ? entry : null;
        const missing = plus.filter((p) => !usable?.groups.has(p));
        const read =
          missing.length > 0
            ? await loadArticleGroups(this.#db, merchantId, menuId, missing)
            : new Map<string, string[]>();
        // Read after the facts: at least as new as they say (the write re-checks them).
        if (usable) for (const p of missing) usable.groups.set(p, read.get(p) ?? []);
        const out = new Map<string, string[]>();
        for (const p of plus) {
          const g = usable?.groups.get(p) ?? read.get(p);
          if (g) out.set(p, g);
        }
        return out;
      },
    };
  }

  async #entry(
    merchantId: number,
    menuId: number,
    plus: readonly string[],
  ): Promise<{ entry: MenuEntry; remembered: boolean } | null> {
    const key = `${merchantId} ${menuId}`;
    const known = this.#entries.get(key);
    if (known && plus.every((p) => known.articles.has(p))) return { entry: known, remembered: true };
    const facts = await readFacts(this.#db, merchantId, menuId);
    if (!facts) {
      this.#entries.delete(key);
      return null;
    }
    let entry = known;
    if (!entry || !sameFacts(entry.facts, facts) || entry.articles.size > MAX_ARTICLES_PER_MENU) {
      entry = { facts, articles: new Map(), groups: new Map() };
      this.#entries.set(key, entry);
    }
    const { articles } = entry;
    const wanted = plus.filter((p) => !articles.has(p));
    const read = await readMenuArticles(this.#db, merchantId, menuId, wanted);
    for (const p of wanted) articles.set(p, read?.articles.get(p) ?? null);
    return { entry, remembered: false };
  }
}
