import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { applyMigrations, databases, emptyTestDatabase } from '../support/harness.js';

describe.each(databases)('migration 0009 on %s', (kind) => {
  it('hashes the DevKeys stored in clear before it, and drops the clear column; the terminals keep their key', async () => {
    const { database, drop } = await emptyTestDatabase(kind);
    try {
      await applyMigrations(database, (name) => name < '0009');
      const key = 'legacy-dev-key-äöü-0123456789';
      await sql`INSERT INTO dev_keys (dev_key, name) VALUES (${key}, 'Old vendor')`.execute(database.db);
      await sql`INSERT INTO merchants (service_user_name, display_name, currency, time_zone)
                VALUES ('m', 'M', 'EUR', 'Europe/Berlin')`.execute(database.db);
      await sql`INSERT INTO outlets (merchant_id, name) SELECT id, 'O' FROM merchants`.execute(database.db);
      await sql`INSERT INTO tracking_units (merchant_id, id, dev_key_id, outlet_id, instance_name, checksum_secret)
                SELECT m.id, 'unit-1', d.id, o.id, 'Till', 'secret' FROM merchants m, dev_keys d, outlets o`.execute(
        database.db,
      );
      await applyMigrations(database, (name) => name.startsWith('0009'));
      const rows = await sql<Record<string, unknown>>`SELECT * FROM dev_keys`.execute(database.db);
      expect(rows.rows).toHaveLength(1);
      expect(rows.rows[0]).toMatchObject({
        key_sha256: createHash('sha256').update(key, 'utf8').digest('hex'),
        name: 'Old vendor',
        revoked_at: null,
      });
      expect(Object.keys(rows.rows[0] ?? {})).not.toContain('dev_key');
      expect(JSON.stringify(rows.rows)).not.toContain(key);
      // The terminal registered with the key is found through the key's hash.
      const unit = await sql<{ id: string }>`
        SELECT tu.id FROM tracking_units tu JOIN dev_keys dk ON dk.id = tu.dev_key_id
         WHERE dk.key_sha256 = ${createHash('sha256').update(key, 'utf8').digest('hex')}`.execute(
        database.db,
      );
      expect(unit.rows).toEqual([{ id: 'unit-1' }]);
    } finally {
      await drop();
    }
  });
});
