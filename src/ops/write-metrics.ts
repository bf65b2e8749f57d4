import { Counter, Histogram, type Metric } from 'prom-client';
import type { BatchObserver } from '../shared/group-commit.js';

/** The writers that write with group commit, as `/metrics` names them. */
export type WriterName = 'basket_uploads' | 'basket_grants' | 'checkout_orders' | 'card_transfers';

/**
 * What the writers that write with group commit (src/shared/group-commit.ts) write, for `/metrics`
 * (docs/decisions.md, "Batched writes on /metrics"): the uploads, grants, orders or card transfers
 * of each batch, the time from a batch's start to its outcomes, and the items written once more
 * on their own. Made with the app's services, whose writers report to it from their first batch;
 * `registerMetrics` adds its metrics to the app's registry.
 */
export class WriteMetrics {
  readonly #items = new Histogram({
    name: 'punchcard_write_batch_items',
    help: 'Items (uploads, grants, orders, card transfers) per batch written in one statement, by writer.',
    labelNames: ['writer'] as const,
    buckets: [1, 2, 4, 8, 16, 32, 64],
    registers: [],
  });
  readonly #seconds = new Histogram({
    name: 'punchcard_write_batch_duration_seconds',
    help: 'Time from the start of a batch to its outcomes (its statement, its commit, its answer read), by writer.',
    labelNames: ['writer'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [],
  });
  readonly #alone = new Counter({
    name: 'punchcard_write_items_alone_total',
    help: 'Items written once more on their own (their batch failed, they failed on their own, or they found a row locked), by writer and way.',
    labelNames: ['writer', 'way'] as const,
    registers: [],
  });

  /** What the writer `writer` reports its batches to. */
  observer(writer: WriterName): BatchObserver {
    const items = this.#items.labels({ writer });
    const seconds = this.#seconds.labels({ writer });
    return {
      batch: (count, elapsed) => {
        items.observe(count);
        seconds.observe(elapsed);
      },
      alone: (way) => this.#alone.inc({ writer, way }),
    };
  }

  get metrics(): readonly Metric[] {
    return [this.#items, this.#seconds, this.#alone];
  }
}
