import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/db.js';
import { type DatabaseKind, databases, startApp } from '../support/harness.js';

// A full collection on demand: the flag lets a fresh context hand out V8's `gc`.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Builds an app, scrapes /metrics once, closes it, and keeps nothing of it but weak references. */
async function closedApp(
  kind: DatabaseKind,
): Promise<{ registry: WeakRef<Registry>; database: WeakRef<Database> }> {
  const t = await startApp(kind);
  expect((await t.app.inject('/metrics')).statusCode).toBe(200);
  const refs = { registry: new WeakRef(t.app.metricsRegistry), database: new WeakRef(t.database) };
  await t.close();
  return refs;
}

describe.each(databases)('the process metrics on %s', (kind) => {
  it("every app's /metrics shows the process's metrics and its own pool", async () => {
    const a = await startApp(kind);
    const b = await startApp(kind);
    try {
      for (const t of [a, b]) {
        const text = (await t.app.inject('/metrics')).body;
        expect(text).toContain('process_cpu_user_seconds_total');
        expect(text).toContain('nodejs_heap_size_used_bytes');
        expect(text).toContain('nodejs_eventloop_lag_seconds');
        expect(text).toContain('# TYPE nodejs_gc_duration_seconds histogram');
        expect(text).toMatch(/punchcard_db_pool_connections\{state="total"\}/);
      }
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("a closed app's metrics registry and database are freed: no process-wide collector keeps them", async () => {
    const refs = await closedApp(kind);
    const held = () => [refs.registry.deref(), refs.database.deref()].filter((x) => x !== undefined).length;
    // A target read through `deref` is kept until the current job ends: collect in a later one.
    for (let i = 0; i < 20; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      gc();
      if (held() === 0) break;
    }
    expect(refs.registry.deref()).toBeUndefined();
    expect(refs.database.deref()).toBeUndefined();
  });
});
