import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, databases, startApp } from '../support/harness.js';
import { setupCheckout, callerOf } from '../checkout/checkout-support.js';
import { newReceiptId } from '../../src/receipts/receipt.store.js';

/**
 * A receipt is made once per basket or order (src/receipts/sql/make_receipts.sql): a second
 * request for the same source answers the receipt made first, in a batch as alone; a batch whose
 * caller knows its sources are new (a checkout booking) is written plainly and fails as a whole
 * on a source that had its receipt.
 */
describe.each(databases)('receipts made once on %s', (kind) => {
  let t: TestApp;
  let merchant: number;
  let seq = 0;
  const source = () => `make-receipts-${++seq}`;
  const makeMany = async (
    sources: string[],
    ids = sources.map(() => newReceiptId(t.clock.ms)),
    known = false,
  ): Promise<string[]> => {
    const at = sources.map(() => new Date().toISOString());
    const r = await sql<{ ord: number; receipt_id: string }>`
      SELECT ord, receipt_id FROM make_receipts(${ids}::text[], ${sources.map(() => merchant)}::bigint[],
        'checkout_order', ${sources}::text[], ${at}::timestamptz[], ${known})`.execute(t.database.db);
    expect(r.rows.map((x) => x.ord)).toEqual(sources.map((_, i) => i + 1));
    return r.rows.map((x) => x.receipt_id);
  };
  const makeOne = async (src: string, id = newReceiptId(t.clock.ms)): Promise<string> => {
    const r = await sql<{ id: string }>`
      SELECT make_receipt(${id}, ${merchant}, 'checkout_order', ${src}, now()) AS id`.execute(t.database.db);
    return String(r.rows[0]?.id);
  };
  const stored = async (src: string): Promise<number> => {
    const r = await sql<{ n: string }>`
      SELECT count(*) AS n FROM receipts WHERE merchant_id = ${merchant} AND source_ref = ${src}`.execute(
      t.database.db,
    );
    return Number(r.rows[0]?.n);
  };

  beforeAll(async () => {
    t = await startApp(kind);
    merchant = (await callerOf(t, await setupCheckout(t))).merchantId;
  });
  afterAll(async () => {
    await t.close();
  });

  it('each source of a batch gets the receipt id given for it', async () => {
    const sources = [source(), source(), source()];
    const ids = sources.map(() => newReceiptId(t.clock.ms));
    expect(await makeMany(sources, ids)).toEqual(ids);
    for (const s of sources) expect(await stored(s)).toBe(1);
  });

  it('a source that has its receipt answers the receipt made first, in a batch and alone', async () => {
    const old = source();
    const first = await makeOne(old);
    const fresh = source();
    const freshId = newReceiptId(t.clock.ms);
    expect(await makeMany([fresh, old], [freshId, newReceiptId(t.clock.ms)])).toEqual([freshId, first]);
    expect(await makeOne(old)).toBe(first);
    expect(await stored(old)).toBe(1);
    expect(await stored(fresh)).toBe(1);
  });

  it('sources the caller knows are new get the ids given; one that had its receipt fails the batch', async () => {
    const sources = [source(), source()];
    const ids = sources.map(() => newReceiptId(t.clock.ms));
    expect(await makeMany(sources, ids, true)).toEqual(ids);
    for (const s of sources) expect(await stored(s)).toBe(1);

    const old = source();
    const first = await makeOne(old);
    const fresh = source();
    await expect(makeMany([fresh, old], undefined, true)).rejects.toThrow(/duplicate key|unique/i);
    expect(await stored(fresh)).toBe(0);
    expect(await makeOne(old)).toBe(first);
  });

  it('the same source twice in one batch gets one receipt', async () => {
    const twice = source();
    const [a, b] = await makeMany([twice, twice]);
    expect(a).toBe(b);
    expect(await stored(twice)).toBe(1);
  });

  it('a receipt id is 22 to 64 letters, digits, _ or - (the database refuses any other)', async () => {
    const tryId = async (id: string): Promise<boolean> => {
      try {
        await sql`INSERT INTO receipts (id, merchant_id, kind, source_ref) VALUES (${id}, ${merchant},
          'checkout_order', ${source()})`.execute(t.database.db);
        return true;
      } catch {
        return false;
      }
    };
    expect(await tryId('a'.repeat(22))).toBe(true);
    expect(await tryId('Z9_-'.repeat(16))).toBe(true);
    expect(await tryId('a'.repeat(21))).toBe(false);
    expect(await tryId('a'.repeat(65))).toBe(false);
    expect(await tryId(`${'a'.repeat(21)}.`)).toBe(false);
    expect(await tryId(`${'a'.repeat(21)}\n`)).toBe(false);
    expect(await tryId(`${'a'.repeat(21)}ä`)).toBe(false);
  });
});
