import { readFileSync } from 'node:fs';
import {
  type Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
  sql,
} from 'kysely';
import { inject } from 'vitest';
import { type Database, openDatabase } from '../../src/store/db.js';
import type { DB } from '../../src/store/schema.js';

/**
 * The run's embedded dump (some 44 MB) as PGlite loads it. PGlite reads the Blob it is given whole
 * with `arrayBuffer()`, which Node's Blob answers by streaming its bytes in chunks and joining them:
 * about a third of the CPU of opening a test database. This one answers the bytes read once per
 * process (the test files of a worker share them) without copying them: PGlite only reads them (it
 * copies each file out of the archive into its own file system), and a Blob made of them would copy
 * all 44 MB when made, and `slice()` them again for each open (some 0.17 s of CPU per copy).
 */
class DumpBlob extends Blob {
  constructor(private readonly dump: Uint8Array) {
    super([]);
    Object.defineProperty(this, 'size', { value: dump.byteLength });
  }
  override arrayBuffer(): Promise<ArrayBuffer> {
    const { buffer, byteOffset, byteLength } = this.dump;
    // readFileSync's bytes may sit in a larger pool buffer; the file's own bytes are read whole.
    if (byteOffset === 0 && byteLength === buffer.byteLength) return Promise.resolve(buffer as ArrayBuffer);
    return Promise.resolve(buffer.slice(byteOffset, byteOffset + byteLength) as ArrayBuffer);
  }
}

let dumpRead: { file: string; bytes: Uint8Array } | null = null;

function pgliteDump(): Blob {
  const file = inject('pgliteTemplate');
  if (dumpRead?.file !== file) dumpRead = { file, bytes: readFileSync(file) };
  return new DumpBlob(dumpRead.bytes);
}

/**
 * What a test file's embedded database is made of when it is handed out, read off the first one
 * opened from the run's dump: the tables the migrations leave empty (a file's rows go by
 * truncating them), where each sequence stands, and a fingerprint of everything else (schema,
 * functions, triggers, the rows the migrations wrote).
 */
export interface Template {
  /** What the template was read from (the run's dump, or the PostgreSQL template's name). */
  readonly dump: string;
  /** The tables the migrations leave empty. */
  readonly empty: readonly string[];
  readonly truncate: string;
  readonly sequences: readonly { name: string; last: number | null }[];
  readonly fingerprint: string;
}

/** Everything of the database a test could change but its rows: compared after each reset. */
export async function fingerprintOf(db: Kysely<DB>): Promise<string> {
  const { rows } = await sql<{ h: string }>`
    SELECT md5(string_agg(x, '|' ORDER BY x)) AS h FROM (
      SELECT 'n:' || nspname::text AS x FROM pg_namespace
       WHERE nspname NOT LIKE 'pg\_temp\_%' AND nspname NOT LIKE 'pg\_toast\_temp\_%'
      UNION ALL SELECT 'r:' || n.nspname::text || '.' || c.relname::text || ':' || c.relkind::text
        || ':' || c.relnatts::text || ':' || coalesce(array_to_string(c.reloptions, ','), '')
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
      UNION ALL SELECT 'a:' || c.relname::text || '.' || a.attname::text || ':' || format_type(a.atttypid, a.atttypmod)
        || ':' || a.attnotnull::text || ':' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
        FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
       WHERE n.nspname = 'public' AND a.attnum > 0 AND NOT a.attisdropped
      UNION ALL SELECT 'i:' || md5(pg_get_indexdef(i.indexrelid)) FROM pg_index i
        JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public'
      UNION ALL SELECT 'k:' || conname::text || ':' || md5(pg_get_constraintdef(oid)) FROM pg_constraint
       WHERE connamespace = 'public'::regnamespace
      UNION ALL SELECT 't:' || md5(pg_get_triggerdef(oid)) || ':' || tgenabled::text FROM pg_trigger
       WHERE NOT tgisinternal
      UNION ALL SELECT 'p:' || p.proname::text || ':' || md5(pg_get_functiondef(p.oid)) FROM pg_proc p
       WHERE p.pronamespace = 'public'::regnamespace AND p.prokind IN ('f', 'p')
      UNION ALL SELECT 'v:' || c.relname::text || ':' || md5(pg_get_viewdef(c.oid)) FROM pg_class c
       WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('v', 'm')
      UNION ALL SELECT 's:' || coalesce(array_to_string(setconfig, ','), '') FROM pg_db_role_setting
       WHERE setdatabase IN (0, (SELECT oid FROM pg_database WHERE datname = current_database()))
      UNION ALL SELECT 'e:' || extname::text || ':' || extversion FROM pg_extension
      UNION ALL SELECT 'm:' || name || ':' || md5(sha256) FROM stored_functions
      UNION ALL SELECT 'g:' || name FROM kysely_migration
      UNION ALL SELECT 'l:' || id || ':' || is_locked::text FROM kysely_migration_lock
    ) s`.execute(db);
  return rows[0]?.h ?? '';
}

export async function readTemplate(db: Kysely<DB>, dump: string): Promise<Template> {
  const tables = await sql<{ name: string; rows: boolean }>`
    SELECT format('%I', c.relname) AS name,
           (xpath('/row/n/text()', query_to_xml(format('SELECT count(*) > 0 AS n FROM public.%I', c.relname),
             false, true, '')))[1]::text = 'true' AS rows
      FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
     ORDER BY c.relname`.execute(db);
  const empty = tables.rows.filter((t) => !t.rows).map((t) => `public.${t.name}`);
  const sequences = await sql<{ name: string; last: number | null }>`
    SELECT format('%I.%I', schemaname, sequencename) AS name, last_value AS last FROM pg_sequences
     ORDER BY 1`.execute(db);
  return {
    dump,
    empty,
    truncate: empty.length > 0 ? `TRUNCATE ${empty.join(', ')} RESTART IDENTITY CASCADE` : '',
    sequences: sequences.rows,
    fingerprint: await fingerprintOf(db),
  };
}

/** Every sequence back where the template has it. */
export async function restartSequences(db: Kysely<DB>, from: Template): Promise<void> {
  for (const s of from.sequences) {
    if (s.last === null) await sql.raw(`ALTER SEQUENCE ${s.name} RESTART`).execute(db);
    else await sql`SELECT setval(${s.name}::regclass, ${s.last})`.execute(db);
  }
}

let template: Template | null = null;
/** Embedded databases of this process that a test file gave back, reset, ready for the next. */
const idle: Database[] = [];

/**
 * Brings a database a test file is done with back to the template: its session's state discarded,
 * the tables the migrations left empty truncated, every sequence where it stood. True when nothing
 * else differs from the template (a test that altered the schema, a function or the migrations'
 * rows leaves a database that is closed instead).
 */
async function reset(database: Database, from: Template): Promise<boolean> {
  const { db } = database;
  // Fails inside a transaction a test left open: that database is closed instead.
  await sql`DISCARD ALL`.execute(db);
  if (from.truncate) await sql.raw(from.truncate).execute(db);
  await restartSequences(db, from);
  // The write-ahead log of a file's rows is given back (the embedded database keeps it in memory).
  await sql`CHECKPOINT`.execute(db);
  return (await fingerprintOf(db)) === from.fingerprint;
}

/**
 * An embedded database as the run's dump left it, for one test file (docs/decisions.md, "Tests"):
 * opening one from the dump costs about a second of CPU (PGlite unpacks the 44 MB into its file
 * system and starts PostgreSQL), so each worker process keeps the ones its files gave back, reset
 * to the template (rows truncated, sequences restarted, the session discarded) and checked against
 * the template's fingerprint; one that differs is closed, and the next file gets a fresh one.
 */
export async function takeEmbedded(): Promise<{ database: Database; drop(): Promise<void> }> {
  const dump = inject('pgliteTemplate');
  if (template !== null && template.dump !== dump) {
    template = null;
    for (const d of idle.splice(0)) await d.close();
  }
  let database = idle.pop();
  if (database === undefined) {
    database = await openDatabase({ databaseUrl: null, dataDir: null, loadDataDir: pgliteDump() });
    template ??= await readTemplate(database.db, dump);
  }
  const own = database;
  const from = template;
  if (from === null) throw new Error('the embedded template was not read');
  // The file's handle refuses every query once given back: a late query of a closed app fails, as
  // on a closed database, instead of writing into the next file's rows.
  const given = new GivenBack();
  const db = own.db.withPlugin(given);
  let dropped: Promise<void> | null = null;
  const drop = () => {
    dropped ??= (async () => {
      given.back = true;
      let clean = false;
      try {
        clean = await reset(own, from);
      } catch {
        clean = false;
      }
      if (clean && template === from) idle.push(own);
      else await own.close().catch(() => undefined);
    })();
    return dropped;
  };
  return { database: { ...own, db, read: db, close: drop }, drop };
}

/** Refuses the queries of a test database's handle once the file gave it back. */
class GivenBack implements KyselyPlugin {
  back = false;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (this.back) throw new Error('this test database was given back (its file closed it)');
    return args.node;
  }
  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return Promise.resolve(args.result);
  }
}
