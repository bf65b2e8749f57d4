import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('settings of the limits (src/config.ts)', () => {
  it('have the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 72_000,
      maxConnections: 1024,
      bulkMinBytesPerSecond: 16_384,
      bulkBatchSize: 1_000,
      exposeErrorDetails: false,
      metricsPort: null,
      metricsToken: null,
      trustProxy: false,
      operatorAuthMaxFailures: 10,
      operatorAuthWindowSeconds: 900,
      outboxPollMs: 1000,
      embeddedAnalyzeEveryMs: 60_000,
      outboxRetryScheduleMs: null,
      outboxDisabled: false,
    });
    expect(loadConfig({ NODE_ENV: 'development' }).exposeErrorDetails).toBe(false);
  });

  it('read what is set', () => {
    const c = loadConfig({
      HEADERS_TIMEOUT_MS: '5000',
      REQUEST_TIMEOUT_MS: '60000',
      KEEP_ALIVE_TIMEOUT_MS: '65000',
      MAX_CONNECTIONS: '4096',
      BULK_MIN_BYTES_PER_SECOND: '65536',
      BULK_BATCH_SIZE: '250',
      EXPOSE_ERROR_DETAILS: 'true',
      METRICS_PORT: '9100',
      METRICS_HOST: '127.0.0.1',
      METRICS_TOKEN: 'a-metrics-token-of-16+',
      OPERATOR_AUTH_MAX_FAILURES: '5',
      OPERATOR_AUTH_WINDOW_SECONDS: '60',
      OUTBOX_POLL_MS: '250',
      EMBEDDED_ANALYZE_EVERY_MS: '5000',
      OUTBOX_RETRY_SCHEDULE_MS: '50, 100,200',
      OUTBOX_DISABLED: 'true',
    });
    expect(c).toMatchObject({
      headersTimeoutMs: 5_000,
      requestTimeoutMs: 60_000,
      keepAliveTimeoutMs: 65_000,
      maxConnections: 4096,
      bulkMinBytesPerSecond: 65_536,
      bulkBatchSize: 250,
      exposeErrorDetails: true,
      metricsPort: 9100,
      metricsHost: '127.0.0.1',
      metricsToken: 'a-metrics-token-of-16+',
      operatorAuthMaxFailures: 5,
      operatorAuthWindowSeconds: 60,
      outboxPollMs: 250,
      embeddedAnalyzeEveryMs: 5_000,
      outboxRetryScheduleMs: [50, 100, 200],
      outboxDisabled: true,
    });
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.1, 192.168.0.0/16,::1' }).trustProxy).toBe(
      '10.0.0.1,192.168.0.0/16,::1',
    );
  });

  it.each([
    ['HEADERS_TIMEOUT_MS', '0'],
    ['REQUEST_TIMEOUT_MS', 'soon'],
    ['KEEP_ALIVE_TIMEOUT_MS', '-1'],
    ['MAX_CONNECTIONS', '0'],
    ['BULK_MIN_BYTES_PER_SECOND', '1.5'],
    ['BULK_BATCH_SIZE', '0'],
    ['BULK_BATCH_SIZE', '9'],
    ['BULK_BATCH_SIZE', '100001'],
    ['BULK_BATCH_SIZE', 'many'],
    ['EXPOSE_ERROR_DETAILS', 'maybe'],
    ['METRICS_PORT', '70000'],
    ['METRICS_TOKEN', 'short'],
    ['TRUST_PROXY', 'proxy.example.org'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['OPERATOR_AUTH_MAX_FAILURES', '0'],
    ['OPERATOR_AUTH_WINDOW_SECONDS', '86401'],
    ['OUTBOX_POLL_MS', '5'],
    ['OUTBOX_RETRY_SCHEDULE_MS', '50,,100'],
    ['OUTBOX_RETRY_SCHEDULE_MS', '0'],
    ['OUTBOX_DISABLED', 'sometimes'],
    ['BACKUP_EVERY_MINUTES', '0'],
    ['BACKUP_EVERY_MINUTES', '10081'],
    ['BACKUP_KEEP', '0'],
  ])('refuse %s=%s with a message naming the setting', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('refuse METRICS_PORT equal to PORT', () => {
    expect(() => loadConfig({ PORT: '9000', METRICS_PORT: '9000' })).toThrow(
      'METRICS_PORT must differ from PORT',
    );
  });
});

describe("the server's own backups of the embedded database", () => {
  it('are off unless BACKUP_DIR is set; then daily, seven kept', () => {
    expect(loadConfig({})).toMatchObject({ backupDir: null, backupEveryMinutes: 1440, backupKeep: 7 });
    expect(
      loadConfig({ BACKUP_DIR: '/var/backups/punchcard', BACKUP_EVERY_MINUTES: '60', BACKUP_KEEP: '48' }),
    ).toMatchObject({
      backupDir: '/var/backups/punchcard',
      backupEveryMinutes: 60,
      backupKeep: 48,
    });
  });
  it("are refused beside DATABASE_URL, naming PostgreSQL's own tools", () => {
    const both = { BACKUP_DIR: '/var/backups/punchcard', DATABASE_URL: 'postgres://app@db/punchcard' };
    expect(() => loadConfig(both)).toThrow(ConfigError);
    expect(() => loadConfig(both)).toThrow('pg_dump');
  });
});

describe('settings of a database beyond one server', () => {
  const url = 'postgres://app@db-leader:5432/punchcard';
  it('default to one direct connection: reads from DATABASE_URL, the order pipeline on', () => {
    expect(loadConfig({ DATABASE_URL: url })).toMatchObject({
      databaseReadUrl: null,
      databasePooler: 'none',
    });
  });
  it('read a replica for reports and a pooler in transaction mode', () => {
    const c = loadConfig({
      DATABASE_URL: url,
      DATABASE_READ_URL: 'postgres://app@db-replica:5432/punchcard',
      DATABASE_POOLER: 'transaction',
    });
    expect(c).toMatchObject({
      databaseReadUrl: 'postgres://app@db-replica:5432/punchcard',
      databasePooler: 'transaction',
    });
  });
  it('refuse a replica without a leader, a replica that is no PostgreSQL URL, and an unknown pooler', () => {
    expect(() => loadConfig({ DATABASE_READ_URL: 'postgres://app@db-replica/punchcard' })).toThrow(
      ConfigError,
    );
    expect(() => loadConfig({ DATABASE_URL: url, DATABASE_READ_URL: 'mysql://x/y' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATABASE_URL: url, DATABASE_POOLER: 'session' })).toThrow(ConfigError);
  });
  it("read a statement's limit: 30 s unless set, 0 for none, and refuse what is no whole number of milliseconds up to an hour", () => {
    expect(loadConfig({ DATABASE_URL: url }).databaseStatementTimeoutMs).toBe(30_000);
    expect(loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '5000' }).databaseStatementTimeoutMs).toBe(5_000);
    expect(loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '0' }).databaseStatementTimeoutMs).toBe(0);
    for (const bad of ['-1', '1.5', '30s', '3600001'])
      expect(() => loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: bad })).toThrow(
        `DATABASE_STATEMENT_TIMEOUT_MS must be a whole number from 0 to 3600000, not "${bad}"`,
      );
  });
});
