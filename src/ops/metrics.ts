import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { IdentificationObserver } from '../cards/identification-throttle.js';
import type { Database } from '../store/db.js';
import type { WriteMetrics } from './write-metrics.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Counts failed and refused one-time password identifications. */
    identificationObserver: IdentificationObserver;
  }
}

let processRegistry: Registry | null = null;

/**
 * The process's own metrics (CPU, memory, file descriptors, event loop lag, garbage collection),
 * collected once per process. prom-client's collectors cannot be stopped: the GC observer and the
 * event loop delay monitor stay registered for as long as the process runs and keep the registry
 * they report to. Collected per app, every closed app's registry (and through the pool gauge its
 * database) stayed reachable, and each app added a GC observer and a 10 ms monitor to the process.
 */
export function processMetrics(): Registry {
  if (processRegistry === null) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * Prometheus metrics of one app: request count and latency per route and status, the
 * database pool, the batched writes (`writes`), and the process. Each app has its own registry, so
 * tests can build many; the process's metrics are the same objects in every app's registry
 * (`processMetrics`).
 */
export function registerMetrics(
  app: FastifyInstance,
  database: Database,
  writes: WriteMetrics,
  backups: { status(): { lastMs: number | null } } | null = null,
): Registry {
  // A registry of its own, holding the process's metrics and then the app's.
  const registry = Registry.merge([processMetrics()]);
  for (const metric of writes.metrics) registry.registerMetric(metric);
  const requests = new Counter({
    name: 'punchcard_http_requests_total',
    help: 'HTTP requests by method, route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'punchcard_http_request_duration_seconds',
    help: 'HTTP request latency by method, route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  new Gauge({
    name: 'punchcard_db_pool_connections',
    help: 'Database pool connections by state (total, idle, waiting clients).',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const s = database.poolStats();
      this.set({ state: 'total' }, s.total);
      this.set({ state: 'idle' }, s.idle);
      this.set({ state: 'waiting' }, s.waiting);
    },
  });
  new Counter({
    name: 'punchcard_db_connections_given_up_total',
    help: 'Database connections given up because a statement sent on them was not answered within its limit: the database, or the network to it, silent.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(database.poolStats().givenUp);
    },
  });
  if (backups !== null) {
    // The server's own backups (BACKUP_DIR): an alert on their age catches every way they stop.
    new Gauge({
      name: 'punchcard_backup_last_success_timestamp_seconds',
      help: 'When the newest backup of the embedded database in BACKUP_DIR was taken (Unix time); 0 before the first.',
      registers: [registry],
      collect() {
        this.set(Math.floor((backups.status().lastMs ?? 0) / 1000));
      },
    });
  }
  const identificationFailures = new Counter({
    name: 'punchcard_identification_failures_total',
    help: 'Identifiers shaped like a one-time password that identified nobody (possible guesses).',
    registers: [registry],
  });
  const identificationRefusals = new Counter({
    name: 'punchcard_identification_refusals_total',
    help: 'Requests refused by the limits on failed identifications, by the limit that refused them.',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  app.decorate('identificationObserver', {
    failed: (count: number) => identificationFailures.inc(count),
    refused: (reason: Parameters<IdentificationObserver['refused']>[0]) =>
      identificationRefusals.inc({ reason }),
  });
  // A callback hook: nothing is waited for, and an async hook costs a promise per request.
  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, never the raw URL: ids in paths must not explode the label set.
    const route = request.routeOptions.url ?? 'unmatched';
    const labels = { method: request.method, route, status: String(reply.statusCode) };
    requests.inc(labels);
    latency.observe(labels, reply.elapsedTime / 1000);
    done();
  });
  return registry;
}
