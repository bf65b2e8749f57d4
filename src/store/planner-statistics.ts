import type { Kysely } from 'kysely';
import type { DB } from './schema.js';
import { analyzeTable, staleTables } from './planner-statistics.store.js';

/** What the keeper tells the log: each pass that analyzed something, and a pass that failed. */
export interface StatisticsLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * Keeps the embedded database's planner statistics as PostgreSQL's autovacuum keeps a server's
 * (docs/decisions.md, "Planner statistics on the embedded database"): PGlite runs no background
 * workers, so without this every table looks empty to the planner however large it grows, and it
 * picks plans that read a merchant's whole history. Every `everyMs` the tables changed by more than
 * a tenth since their last ANALYZE (or never analyzed) are analyzed, one statement each, so that
 * requests waiting on the one connection wait for one table at most.
 */
export class PlannerStatistics {
  private timer: NodeJS.Timeout | null = null;
  private pass: Promise<string[]> | null = null;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly everyMs: number,
  ) {}

  start(log: StatisticsLog): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => {
      if (this.pass !== null) return;
      this.pass = this.refresh(log)
        .catch((err: unknown) => {
          log.error({ err }, 'planner statistics: the pass failed');
          return [];
        })
        .finally(() => {
          this.pass = null;
        });
    }, this.everyMs);
    this.timer.unref();
  }

  /** One pass: the stale tables analyzed; answers their names. */
  async refresh(log?: StatisticsLog): Promise<string[]> {
    const tables = await staleTables(this.db);
    const began = performance.now();
    for (const table of tables) await analyzeTable(this.db, table);
    if (tables.length > 0 && log) {
      log.info({ tables, ms: Math.round(performance.now() - began) }, 'planner statistics refreshed');
    }
    return tables;
  }

  /** Stops the timer and waits for a pass under way. */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.pass;
  }
}
