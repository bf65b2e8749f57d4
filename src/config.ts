import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { PASSWORD_COST } from './portal-users/password.js';

/** A bulk upload's head start before its average rate counts (a client's start-up, a proxy's buffering). */
export const BULK_HEAD_START_MS = 10_000;

/** Every setting of the service, read once from the environment and validated. */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** postgres://... selects PostgreSQL; null means the embedded database in dataDir. */
  readonly databaseUrl: string | null;
  /**
   * A replica (or a pooler's read database) for reads that decide no money: the portal's
   * dashboards, reports and CSV, the consumer's pages and receipts. null: they read DATABASE_URL.
   */
  readonly databaseReadUrl: string | null;
  /**
   * 'transaction' when a pooler in transaction mode (PgBouncer 1.18) stands before PostgreSQL: no
   * state may outlive a transaction, so the order writer's pipelined connection with its named
   * statements is off and orders go through the pool. 'none': a direct connection.
   */
  readonly databasePooler: 'none' | 'transaction';
  /**
   * Behind such a pooler, an address straight to PostgreSQL's leader for the order writer's one
   * pipelined connection, which then stays on. null: off behind a pooler, DATABASE_URL otherwise.
   */
  readonly databasePipelineUrl: string | null;
  /** null: the server makes one on first start and stores it in the database. */
  readonly adminToken: string | null;
  readonly publicBaseUrl: string;
  readonly smtpUrl: string | null;
  /** Sender of the mails the service sends (MAIL_FROM). */
  readonly mailFrom: string;
  /** VAPID keys of Web Push (base64url); null: generated on first start and kept in `settings`. */
  readonly vapidPublicKey: string | null;
  readonly vapidPrivateKey: string | null;
  /** The VAPID contact (a mailto: or https: URL). */
  readonly vapidSubject: string;
  readonly autoActivateUnits: boolean;
  readonly webhookAllowPrivate: boolean;
  readonly logLevel: string;
  readonly production: boolean;
  /**
   * scrypt's N for new portal passwords: always 2^15 (PASSWORD_COST), no environment variable sets
   * it. Tests of other rules than the hash build their Config with a lower one (docs/decisions.md,
   * "Tests").
   */
  readonly portalPasswordCost: number;
  /** Largest accepted request body after decompression, in bytes. */
  readonly bodyLimitBytes: number;
  /** Largest accepted sortiment bulk upload after decompression, in bytes. */
  readonly bulkBodyLimitBytes: number;
  /** Sortiment bulk uploads running at once per authenticated terminal, and in the process. */
  readonly bulkUploadsPerTerminal: number;
  readonly bulkUploadsPerProcess: number;
  /**
   * Articles a bulk upload writes per transaction (BULK_BATCH_SIZE): smaller ones hold their locks
   * and memory for less time between other requests' queries, larger ones take fewer round trips.
   */
  readonly bulkBatchSize: number;
  readonly databasePoolSize: number;
  /**
   * The longest one statement of the service's pools may run on PostgreSQL, lock waits included
   * (DATABASE_STATEMENT_TIMEOUT_MS; 0: no limit); not set behind a pooler in transaction mode, where
   * the operator sets it on the database role (docs/decisions.md, "A statement's limit").
   */
  readonly databaseStatementTimeoutMs: number;
  /** A request body (other than a bulk upload's) must have arrived this long after its headers. */
  readonly requestTimeoutMs: number;
  /** The request line and headers must have arrived this long after the request began. */
  readonly headersTimeoutMs: number;
  /** An idle kept-alive connection is closed after this long. */
  readonly keepAliveTimeoutMs: number;
  /** Open connections at most; further ones are closed on arrival. */
  readonly maxConnections: number;
  /** A body larger than BODY_LIMIT_BYTES may take (a bulk upload) must arrive at least this fast. */
  readonly bulkMinBytesPerSecond: number;
  /**
   * A bulk upload's head start before its average rate counts: always BULK_HEAD_START_MS, no
   * environment variable sets it. The tests of the rate build their Config with a shorter one.
   */
  readonly bulkHeadStartMs: number;
  /** 500 answers carry the failure's message and stack (development only). */
  readonly exposeErrorDetails: boolean;
  /** null: /metrics is served on PORT with the API; else only on this port. */
  readonly metricsPort: number | null;
  readonly metricsHost: string;
  /** null: /metrics needs no token; else `Authorization: Bearer <token>`. */
  readonly metricsToken: string | null;
  /** Fastify's trustProxy: which proxies' X-Forwarded-For is believed for the client address. */
  readonly trustProxy: boolean | number | string;
  /** Failed operator authentications one client address may make per window. */
  readonly operatorAuthMaxFailures: number;
  readonly operatorAuthWindowSeconds: number;
  readonly portalSignInMaxFailures: number;
  readonly portalSignInWindowSeconds: number;
  /** How often an idle outbox dispatcher looks for due messages. */
  readonly outboxPollMs: number;
  /** How often the embedded database's stale planner statistics are refreshed (src/store/planner-statistics.ts). */
  readonly embeddedAnalyzeEveryMs: number;
  /** null: each kind of message keeps its own retry schedule; else these delays (tests). */
  readonly outboxRetryScheduleMs: readonly number[] | null;
  /** This process sends nothing from the outbox (another process does). */
  readonly outboxDisabled: boolean;
  /**
   * Where the server writes backups of the embedded database on its own (src/store/backups.ts);
   * null: none. Not with PostgreSQL, which is backed up with its own tools.
   */
  readonly backupDir: string | null;
  /** How long after the newest backup in backupDir the next is taken. */
  readonly backupEveryMinutes: number;
  /** How many of the server's backups backupDir keeps; older ones are removed. */
  readonly backupKeep: number;
}

export class ConfigError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(true|1|yes)$/i.test(raw)) return true;
  if (/^(false|0|no)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, not "${raw}"`);
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, not "${raw}"`);
  }
  return n;
}

/** A comma list of delays in ms (each from 1 ms to 7 days), or null when unset. */
function delays(env: NodeJS.ProcessEnv, name: string): readonly number[] | null {
  const raw = (env[name] ?? '').trim();
  if (raw === '') return null;
  const parts = raw.split(',').map((p) => p.trim());
  const values = parts.map(Number);
  if (parts.some((p) => !/^\d+$/.test(p)) || values.some((v) => v < 1 || v > 604_800_000)) {
    throw new ConfigError(
      `${name} must be a comma list of delays in milliseconds (1 to 604800000), not "${raw}"`,
    );
  }
  return values;
}

/** false, true (every proxy), a hop count, or a comma list of proxy addresses and CIDR ranges. */
function trustProxy(env: NodeJS.ProcessEnv): boolean | number | string {
  const raw = (env.TRUST_PROXY ?? '').trim();
  if (raw === '' || /^(false|0|no)$/i.test(raw)) return false;
  if (/^(true|yes)$/i.test(raw)) return true;
  if (/^\d+$/.test(raw)) return int(env, 'TRUST_PROXY', 1, 1, 100);
  const parts = raw.split(',').map((p) => p.trim());
  for (const part of parts) {
    const [address, bits, ...rest] = part.split('/');
    const version = isIP(address ?? '');
    const maxBits = version === 6 ? 128 : 32;
    const bitsOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= maxBits);
    if (version === 0 || !bitsOk || rest.length > 0) {
      throw new ConfigError(
        `TRUST_PROXY must be true, false, a hop count or a comma list of addresses and CIDR ranges, not "${part}"`,
      );
    }
  }
  return parts.join(',');
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST || '0.0.0.0';
  const databaseUrl = env.DATABASE_URL || null;
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const databaseReadUrl = env.DATABASE_READ_URL || null;
  if (databaseReadUrl !== null && (databaseUrl === null || !/^postgres(ql)?:\/\//.test(databaseReadUrl))) {
    throw new ConfigError(
      'DATABASE_READ_URL must start with postgres:// or postgresql://, beside a DATABASE_URL',
    );
  }
  const databasePipelineUrl = env.DATABASE_PIPELINE_URL || null;
  if (
    databasePipelineUrl !== null &&
    (databaseUrl === null || !/^postgres(ql)?:\/\//.test(databasePipelineUrl))
  ) {
    throw new ConfigError(
      'DATABASE_PIPELINE_URL must start with postgres:// or postgresql://, beside a DATABASE_URL',
    );
  }
  const databasePooler = env.DATABASE_POOLER || 'none';
  if (databasePooler !== 'none' && databasePooler !== 'transaction') {
    throw new ConfigError('DATABASE_POOLER must be none or transaction');
  }
  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const adminToken = env.ADMIN_TOKEN || null;
  if (adminToken !== null && adminToken.length < 16) {
    throw new ConfigError('ADMIN_TOKEN must be at least 16 characters long');
  }
  const metricsToken = env.METRICS_TOKEN || null;
  if (metricsToken !== null && metricsToken.length < 16) {
    throw new ConfigError('METRICS_TOKEN must be at least 16 characters long');
  }
  const metricsPort = env.METRICS_PORT ? int(env, 'METRICS_PORT', 0, 0, 65535) : null;
  if (metricsPort !== null && metricsPort !== 0 && metricsPort === port) {
    throw new ConfigError('METRICS_PORT must differ from PORT');
  }
  const requestTimeoutMs = int(env, 'REQUEST_TIMEOUT_MS', 30_000, 1_000, 3_600_000);
  const headersTimeoutMs = int(env, 'HEADERS_TIMEOUT_MS', 10_000, 1_000, 600_000);
  const publicBaseUrl = (env.PUBLIC_BASE_URL || `http://localhost:${port}`).replace(/\/+$/, '');
  try {
    new URL(publicBaseUrl);
  } catch {
    throw new ConfigError('PUBLIC_BASE_URL must be an absolute URL');
  }
  return {
    port,
    host,
    dataDir: resolve(env.DATA_DIR || './data'),
    databaseUrl,
    databaseReadUrl,
    databasePooler,
    databasePipelineUrl,
    adminToken,
    publicBaseUrl,
    smtpUrl: env.SMTP_URL || null,
    mailFrom: env.MAIL_FROM || 'Punchcard <no-reply@punchcard.invalid>',
    ...vapid(env),
    autoActivateUnits: bool(env, 'AUTO_ACTIVATE_UNITS', false),
    webhookAllowPrivate: bool(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    logLevel,
    production: env.NODE_ENV === 'production',
    portalPasswordCost: PASSWORD_COST,
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 5 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    bulkBodyLimitBytes: int(env, 'BULK_BODY_LIMIT_BYTES', 256 * 1024 * 1024, 1024, 2 * 1024 * 1024 * 1024),
    bulkUploadsPerTerminal: int(env, 'BULK_UPLOADS_PER_TERMINAL', 1, 1, 100),
    bulkUploadsPerProcess: int(env, 'BULK_UPLOADS_PER_PROCESS', 2, 1, 1000),
    bulkBatchSize: int(env, 'BULK_BATCH_SIZE', 1_000, 10, 100_000),
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', 10, 1, 500),
    databaseStatementTimeoutMs: int(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 30_000, 0, 3_600_000),
    requestTimeoutMs,
    headersTimeoutMs,
    keepAliveTimeoutMs: int(env, 'KEEP_ALIVE_TIMEOUT_MS', 72_000, 1_000, 600_000),
    maxConnections: int(env, 'MAX_CONNECTIONS', 1024, 1, 1_000_000),
    bulkMinBytesPerSecond: int(env, 'BULK_MIN_BYTES_PER_SECOND', 16 * 1024, 1, 1024 * 1024 * 1024),
    bulkHeadStartMs: BULK_HEAD_START_MS,
    exposeErrorDetails: bool(env, 'EXPOSE_ERROR_DETAILS', false),
    metricsPort,
    metricsHost: env.METRICS_HOST || host,
    metricsToken,
    trustProxy: trustProxy(env),
    operatorAuthMaxFailures: int(env, 'OPERATOR_AUTH_MAX_FAILURES', 10, 1, 100_000),
    operatorAuthWindowSeconds: int(env, 'OPERATOR_AUTH_WINDOW_SECONDS', 900, 1, 86_400),
    portalSignInMaxFailures: int(env, 'PORTAL_SIGN_IN_MAX_FAILURES', 20, 1, 100_000),
    portalSignInWindowSeconds: int(env, 'PORTAL_SIGN_IN_WINDOW_SECONDS', 900, 1, 86_400),
    outboxPollMs: int(env, 'OUTBOX_POLL_MS', 1000, 10, 600_000),
    embeddedAnalyzeEveryMs: int(env, 'EMBEDDED_ANALYZE_EVERY_MS', 60_000, 100, 86_400_000),
    outboxRetryScheduleMs: delays(env, 'OUTBOX_RETRY_SCHEDULE_MS'),
    outboxDisabled: bool(env, 'OUTBOX_DISABLED', false),
    backupDir: backupDir(env, databaseUrl),
    backupEveryMinutes: int(env, 'BACKUP_EVERY_MINUTES', 1440, 1, 10_080),
    backupKeep: int(env, 'BACKUP_KEEP', 7, 1, 1000),
  };
}

/** BACKUP_DIR, resolved; refused beside DATABASE_URL (docs/decisions.md, "Backups of the embedded database"). */
function backupDir(env: NodeJS.ProcessEnv, databaseUrl: string | null): string | null {
  const raw = env.BACKUP_DIR || null;
  if (raw === null) return null;
  if (databaseUrl !== null) {
    throw new ConfigError(
      "BACKUP_DIR backs up the embedded database; with DATABASE_URL use PostgreSQL's own tools (pg_dump, pg_basebackup)",
    );
  }
  return resolve(raw);
}

function vapid(env: NodeJS.ProcessEnv): Pick<Config, 'vapidPublicKey' | 'vapidPrivateKey' | 'vapidSubject'> {
  const vapidPublicKey = env.VAPID_PUBLIC_KEY || null;
  const vapidPrivateKey = env.VAPID_PRIVATE_KEY || null;
  if ((vapidPublicKey === null) !== (vapidPrivateKey === null)) {
    throw new ConfigError('VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY are set together or not at all');
  }
  const vapidSubject = env.VAPID_SUBJECT || 'mailto:no-reply@punchcard.invalid';
  if (!/^(mailto:|https:)/.test(vapidSubject))
    throw new ConfigError('VAPID_SUBJECT must be a mailto: or https: URL');
  return { vapidPublicKey, vapidPrivateKey, vapidSubject };
}
