import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';

/** Every setting of the service, read once from the environment and validated. */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** postgres://... selects PostgreSQL; null means the embedded database in dataDir. */
  readonly databaseUrl: string | null;
  /** null: the server makes one on first start and stores it in the database. */
  readonly adminToken: string | null;
  readonly publicBaseUrl: string;
  readonly smtpUrl: string | null;
  readonly autoActivateUnits: boolean;
  readonly webhookAllowPrivate: boolean;
  readonly logLevel: string;
  readonly production: boolean;
  /** Largest accepted request body after decompression, in bytes. */
  readonly bodyLimitBytes: number;
  /** Largest accepted sortiment bulk upload after decompression, in bytes. */
  readonly bulkBodyLimitBytes: number;
  readonly databasePoolSize: number;
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

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST || '0.0.0.0';
  const databaseUrl = env.DATABASE_URL || null;
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const adminToken = env.ADMIN_TOKEN || null;
  if (adminToken !== null && adminToken.length < 16) {
    throw new ConfigError('ADMIN_TOKEN must be at least 16 characters long');
  }
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
    adminToken,
    publicBaseUrl,
    smtpUrl: env.SMTP_URL || null,
    autoActivateUnits: bool(env, 'AUTO_ACTIVATE_UNITS', false),
    webhookAllowPrivate: bool(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    logLevel,
    production: env.NODE_ENV === 'production',
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 5 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    bulkBodyLimitBytes: int(env, 'BULK_BODY_LIMIT_BYTES', 256 * 1024 * 1024, 1024, 2 * 1024 * 1024 * 1024),
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', 10, 1, 500),
  };
}

/** A random secret of the given number of bytes, hex encoded. */
export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}
