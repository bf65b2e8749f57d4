/**
 * What a batched writer of the service wrote, read from its `/metrics` (docs/decisions.md,
 * "Batched writes on /metrics"): the batches, their items, and the seconds from each batch's start
 * to its outcomes, summed.
 */
export interface WriteBatches {
  readonly batches: number;
  readonly items: number;
  readonly seconds: number;
}

/** No batch yet. */
export const NO_BATCHES: WriteBatches = { batches: 0, items: 0, seconds: 0 };

/** The writer's totals so far (`writer`: `basket_uploads`, `checkout_orders`, ...). */
export async function writeBatches(baseUrl: string, writer: string): Promise<WriteBatches> {
  const res = await fetch(`${baseUrl}/metrics`);
  if (!res.ok) throw new Error(`/metrics answered ${res.status}`);
  const lines = (await res.text()).split('\n');
  const read = (series: string) => {
    const prefix = `${series}{writer="${writer}"} `;
    const line = lines.find((l) => l.startsWith(prefix));
    return line === undefined ? 0 : Number(line.slice(prefix.length));
  };
  return {
    batches: read('punchcard_write_batch_items_count'),
    items: read('punchcard_write_batch_items_sum'),
    seconds: read('punchcard_write_batch_duration_seconds_sum'),
  };
}

/** What was written between two readings. */
export function batchesBetween(before: WriteBatches, after: WriteBatches): WriteBatches {
  return {
    batches: after.batches - before.batches,
    items: after.items - before.items,
    seconds: after.seconds - before.seconds,
  };
}

/** Two spans' batches together. */
export function addBatches(a: WriteBatches, b: WriteBatches): WriteBatches {
  return { batches: a.batches + b.batches, items: a.items + b.items, seconds: a.seconds + b.seconds };
}

/** "N batches, X <items> a batch on average, Y ms each from its start to its outcomes". */
export function batchesText(items: string, w: WriteBatches): string {
  if (w.batches === 0) return `no batch of ${items}`;
  return (
    `${w.batches} batches, ${(w.items / w.batches).toFixed(1)} ${items} a batch on average, ` +
    `${((1000 * w.seconds) / w.batches).toFixed(2)} ms each from its start to its outcomes`
  );
}
