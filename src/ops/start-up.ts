import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { AdminTokenSource } from '../bootstrap.js';
import type { Config } from '../config.js';

/**
 * pino options of the server: readable lines when a person watches the terminal, one JSON object
 * per line for log collectors otherwise.
 */
export function loggerOptions(level: string, stdoutIsTty: boolean): Record<string, unknown> {
  if (!stdoutIsTty) return { level };
  return {
    level,
    transport: {
      target: 'pino-pretty',
      options: {
        translateTime: 'SYS:HH:MM:ss.l',
        // The start-up lines' fields repeat their message; JSON logs keep them for collectors.
        ignore: 'pid,hostname,docs,database,adminToken,backups',
        singleLine: true,
      },
    },
  };
}

/** The database the server opened, as an operator recognises it; never the password. */
export function describeDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir'> &
    Partial<Pick<Config, 'databaseReadUrl' | 'databasePooler' | 'databasePipelineUrl'>>,
): string {
  if (config.databaseUrl === null) {
    return `embedded PostgreSQL (PGlite) in ${join(config.dataDir, 'pglite')}`;
  }
  const extras = [
    config.databaseReadUrl ? `reports and pages read from ${describeUrl(config.databaseReadUrl)}` : '',
    config.databasePooler === 'transaction'
      ? config.databasePipelineUrl
        ? `behind a pooler in transaction mode, orders pipelined to ${describeUrl(config.databasePipelineUrl)}`
        : 'behind a pooler in transaction mode (orders through the pool)'
      : '',
  ].filter(Boolean);
  return `${describeUrl(config.databaseUrl)}${extras.length > 0 ? `; ${extras.join('; ')}` : ''}`;
}

function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    const user = u.username ? `${decodeURIComponent(u.username)}@` : '';
    const database = decodeURIComponent(u.pathname.replace(/^\//, '')) || '(default database)';
    return `PostgreSQL ${user}${u.host || 'localhost'}/${database}`;
  } catch {
    return 'PostgreSQL (DATABASE_URL)';
  }
}

export function describeAdminToken(source: AdminTokenSource): string {
  switch (source) {
    case 'environment':
      return 'from ADMIN_TOKEN';
    case 'environment-replacing-stored':
      return 'from ADMIN_TOKEN; it replaces the token made on an earlier first start, which does not work while ADMIN_TOKEN is set';
    case 'created':
      return 'made now, on the first start; printed above once, only its hash is kept';
    case 'stored':
      return 'the one made on the first start (only its hash is kept; set ADMIN_TOKEN to choose one)';
  }
}

/** The base URL a person on this machine reaches the server at. */
export function listeningUrl(address: AddressInfo | string | null): string {
  if (address === null || typeof address === 'string') return String(address);
  const wildcard = address.address === '0.0.0.0' || address.address === '::';
  const host = wildcard ? 'localhost' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/**
 * The lines the server logs once it listens (after Fastify's "Punchcard listening on ..." per
 * address): where the API reference is, which database, and where the operator token came from.
 */
export function startUpLines(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'publicBaseUrl' | 'port'> &
    Partial<
      Pick<
        Config,
        | 'databaseReadUrl'
        | 'databasePooler'
        | 'databasePipelineUrl'
        | 'backupDir'
        | 'backupEveryMinutes'
        | 'backupKeep'
      >
    >,
  address: AddressInfo | string | null,
  tokenSource: AdminTokenSource,
): { msg: string; fields: Record<string, unknown> }[] {
  // PUBLIC_BASE_URL left at its default names the configured port, which may not be the one bound.
  const base =
    config.publicBaseUrl === `http://localhost:${config.port}` ? listeningUrl(address) : config.publicBaseUrl;
  const database = describeDatabase(config);
  return [
    {
      msg: `API reference: ${base}/docs (OpenAPI document: ${base}/openapi.json)`,
      fields: { docs: `${base}/docs` },
    },
    { msg: `Database: ${database}`, fields: { database } },
    { msg: `Operator token: ${describeAdminToken(tokenSource)}`, fields: { adminToken: tokenSource } },
    ...(config.databaseUrl === null
      ? [{ msg: `Backups: ${describeBackups(config)}`, fields: { backups: describeBackups(config) } }]
      : []),
  ];
}

/** The embedded database's backups as the start names them (docs/decisions.md, "Backups of the embedded database"). */
export function describeBackups(
  config: Partial<Pick<Config, 'backupDir' | 'backupEveryMinutes' | 'backupKeep'>>,
): string {
  if (!config.backupDir) {
    return 'none written on a schedule; set BACKUP_DIR for daily ones, or take one with GET /api/admin/v1/backup';
  }
  const every = config.backupEveryMinutes ?? 1440;
  const [n, unit] =
    every % 1440 === 0 ? [every / 1440, 'day'] : every % 60 === 0 ? [every / 60, 'hour'] : [every, 'minute'];
  return `every ${n === 1 ? unit : `${n} ${unit}s`} into ${config.backupDir}, the newest ${config.backupKeep ?? 7} kept`;
}
