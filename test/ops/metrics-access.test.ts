import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MetricsServer, startMetricsServer } from '../../src/ops/metrics-server.js';
import { type TestApp, databases, startApp } from '../support/harness.js';

const TOKEN = 'metrics-token-0123456789';

describe.each(databases)('/metrics behind a token (METRICS_TOKEN) on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(kind, {}, { METRICS_TOKEN: TOKEN });
  });
  afterAll(() => t?.close());

  it('without the token, or with another, /metrics answers 401 unauthorized; with it, the metrics', async () => {
    const none = await t.app.inject('/metrics');
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual({
      error: {
        code: 'unauthorized',
        message: 'Authorization is missing or wrong.',
        requestId: expect.any(String),
      },
    });
    const wrong = await t.app.inject({
      url: '/metrics',
      headers: { authorization: 'Bearer not-the-token-0000' },
    });
    expect(wrong.statusCode).toBe(401);
    const right = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(right.statusCode).toBe(200);
    expect(right.body).toContain('punchcard_http_requests_total');
  });
});

describe.each(databases)('/metrics on a port of its own (METRICS_PORT) on %s', (kind) => {
  let t: TestApp;
  let metrics: MetricsServer;
  beforeAll(async () => {
    t = await startApp(kind, {}, { METRICS_PORT: '0', METRICS_HOST: '127.0.0.1', METRICS_TOKEN: TOKEN });
    metrics = await startMetricsServer(t.app.metricsRegistry, t.config);
  });
  afterAll(async () => {
    await metrics?.close();
    await t?.close();
  });

  it('the API port no longer serves /metrics; the metrics port does, with the token, and nothing else', async () => {
    const onApi = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(onApi.statusCode).toBe(404);
    await t.app.inject('/healthz');
    const base = `http://127.0.0.1:${metrics.port}`;
    const ok = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/text\/plain/);
    expect(await ok.text()).toMatch(
      /punchcard_http_requests_total\{method="GET",route="\/healthz",status="200"\} 1/,
    );
    const noToken = await fetch(`${base}/metrics`);
    expect(noToken.status).toBe(401);
    expect(await noToken.json()).toEqual({
      error: {
        code: 'unauthorized',
        message: 'Authorization is missing or wrong.',
        requestId: expect.any(String),
      },
    });
    const other = await fetch(`${base}/api/admin/v1/merchants`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ error: { code: 'not_found' } });
  });
});
