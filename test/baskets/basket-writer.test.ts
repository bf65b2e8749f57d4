import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BasketWrite, BasketWriter } from '../../src/baskets/basket-write.store.js';
import type { Database } from '../../src/store/db.js';
import type { PipelinedConnection } from '../../src/store/pipelined-connection.js';
import {
  type TestApp,
  type Terminal,
  basketTerminalOf,
  countingStatements,
  databases,
  setupTerminal,
  startApp,
} from '../support/harness.js';

/**
 * The ways a batch reaches the database: through the pool (the embedded database, or PostgreSQL
 * behind a pooler), and on PostgreSQL over the writer's pipelined connection as the app writes.
 */
const waysOf = (kind: string) =>
  kind === 'postgres' ? (['pool', 'pipeline'] as const) : (['pool'] as const);

describe.each(databases.flatMap((kind) => waysOf(kind).map((way) => [kind, way] as const)))(
  'group commit of basket uploads on %s through the %s',
  (kind, way) => {
    let t: TestApp;
    let term: Terminal;
    let base: Omit<BasketWrite, 'basketId'>;
    let pipeline: PipelinedConnection | null = null;
    /** The database as the writer takes it, counting the statements it is sent. */
    const counted = (): { database: Pick<Database, 'db' | 'pipeline'>; statements: () => number } => {
      const { db, statements } = countingStatements(t.database.db);
      if (way === 'pool') return { database: { db, pipeline: () => null }, statements };
      const p = pipeline;
      if (!p) throw new Error('no pipelined connection');
      let n = 0;
      const countingPipeline = {
        query: (...args: Parameters<PipelinedConnection['query']>) => {
          n += 1;
          return p.query(...args);
        },
      } as PipelinedConnection;
      return { database: { db, pipeline: () => countingPipeline }, statements: () => n + statements() };
    };
    beforeAll(async () => {
      t = await startApp(kind);
      if (way === 'pipeline') pipeline = t.database.pipeline();
      term = await setupTerminal(t);
      const unit = await basketTerminalOf(t, term);
      base = {
        merchantId: unit.merchantId,
        unitId: term.trackingUnitId,
        outletId: unit.outletId,
        timestampUtcMs: Date.UTC(2026, 2, 2, 12),
        offsetMinutes: 60,
        currency: 'EUR',
        totalValueMinor: 250,
        consumerToken: null,
        giftCardId: null,
        bodyJson: '{"Timestamp":"2026-03-02T13:00:00+01:00","HasDiscounts":false}',
        billNumber: null,
        billPdf: null,
        resultJson: '{"exponent":2}',
        uploadedAtMs: Date.UTC(2026, 2, 2, 12),
        devKeyId: unit.devKeyId,
        sortimentId: unit.sortimentId,
        rulesVersion: unit.rulesVersion,
        profileId: null,
      };
    });
    afterAll(() => t?.close());

    it('a batch sent while one is being written is written after it, each row with its own revision', async () => {
      const { database, statements } = counted();
      // On the pipelined connection two batches at once: the second is sent behind the first
      // before its answer came. Through the pool, where two batches would run side by side, one
      // at a time.
      const writer = new BasketWriter(database, { concurrency: way === 'pipeline' ? 2 : 1, maxBatch: 64 });
      const first = ['PB-0', 'PB-1', 'PB-2'].map((basketId) => writer.write({ ...base, basketId }));
      const second = await new Promise<Promise<number | null>[]>((resolve) =>
        setImmediate(() =>
          resolve([
            writer.write({ ...base, basketId: 'PB-1', totalValueMinor: 777 }),
            writer.write({ ...base, basketId: 'PB-3' }),
          ]),
        ),
      );
      expect(await Promise.all([...first, ...second])).toEqual([1, 1, 1, 2, 1]);
      expect(statements()).toBe(2);
      const stored = await t.database.db
        .selectFrom('baskets')
        .select(['basket_id', 'total_value_minor', 'revision'])
        .where('tracking_unit_id', '=', term.trackingUnitId)
        .where('basket_id', 'like', 'PB-%')
        .orderBy('basket_id')
        .execute();
      expect(stored).toEqual([
        { basket_id: 'PB-0', total_value_minor: 250, revision: 1 },
        { basket_id: 'PB-1', total_value_minor: 777, revision: 2 },
        { basket_id: 'PB-2', total_value_minor: 250, revision: 1 },
        { basket_id: 'PB-3', total_value_minor: 250, revision: 1 },
      ]);
    });

    it('a batch that fails leaves nothing of itself, and the batch behind it is written', async () => {
      const writer = new BasketWriter(counted().database, { concurrency: 2, maxBatch: 64 });
      const failing = Promise.allSettled([
        writer.write({ ...base, basketId: 'FB-0' }),
        // char(3): the database refuses this row, and with it the batch it is in.
        writer.write({ ...base, basketId: 'FB-1', currency: 'EURO' }),
      ]);
      const behind = await new Promise<Promise<number | null>[]>((resolve) =>
        setImmediate(() =>
          resolve([writer.write({ ...base, basketId: 'FB-2' }), writer.write({ ...base, basketId: 'FB-3' })]),
        ),
      );
      const outcomes = [...(await failing), ...(await Promise.allSettled(behind))];
      expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : 'rejected'))).toEqual([
        1,
        'rejected',
        1,
        1,
      ]);
      const stored = await t.database.db
        .selectFrom('baskets')
        .select(['basket_id', 'revision'])
        .where('tracking_unit_id', '=', term.trackingUnitId)
        .where('basket_id', 'like', 'FB-%')
        .orderBy('basket_id')
        .execute();
      // FB-0 once, by its write alone after the batch failed: nothing of the failed batch stayed.
      expect(stored).toEqual([
        { basket_id: 'FB-0', revision: 1 },
        { basket_id: 'FB-2', revision: 1 },
        { basket_id: 'FB-3', revision: 1 },
      ]);
    });

    it('uploads that arrive together or while a write is in flight are written together, each with its own revision', async () => {
      const { database, statements } = counted();
      const writer = new BasketWriter(database, { concurrency: 1, maxBatch: 64 });
      const ids = Array.from({ length: 10 }, (_, i) => `GC-${i}`);
      const revisions = await Promise.all([
        ...ids.map((basketId) => writer.write({ ...base, basketId })),
        // The same basket twice in one batch: written in the order the uploads came.
        writer.write({ ...base, basketId: 'GC-0', totalValueMinor: 999 }),
      ]);
      expect(revisions).toEqual([...ids.map(() => 1), 2]);
      // Written in the same turn of the event loop: one batch, one statement.
      expect(statements()).toBe(1);
      // A write that arrives while a batch is in flight waits for it and goes in the next.
      const [first, second, third] = await Promise.all([
        writer.write({ ...base, basketId: 'GC-20' }),
        new Promise<number | null>((resolve) =>
          setImmediate(() => {
            void writer.write({ ...base, basketId: 'GC-21' }).then(resolve);
          }),
        ),
        new Promise<number | null>((resolve) =>
          setImmediate(() => {
            void writer.write({ ...base, basketId: 'GC-22' }).then(resolve);
          }),
        ),
      ]);
      expect([first, second, third]).toEqual([1, 1, 1]);
      expect(statements()).toBe(3);
      const again = await t.database.db
        .selectFrom('baskets')
        .select(['total_value_minor', 'revision'])
        .where('tracking_unit_id', '=', term.trackingUnitId)
        .where('basket_id', '=', 'GC-0')
        .executeTakeFirstOrThrow();
      expect(again).toEqual({ total_value_minor: 999, revision: 2 });
    });

    it('a batch stores each body, result and bill PDF byte for byte, whatever characters they hold', async () => {
      const { database, statements } = counted();
      const writer = new BasketWriter(database, { concurrency: 1, maxBatch: 64 });
      const odd =
        '{"BillNumber":"a \\"quoted\\" \\\\ back\\u00e9slash \\u001e, {braces}, NULL, ü € 😀","Positions":[]}';
      const rows: BasketWrite[] = [
        { ...base, basketId: 'BY-0', bodyJson: odd, resultJson: '{"exponent":2,"note":"a,\\"b\\"}"}' },
        { ...base, basketId: 'BY-1', billPdf: Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x22, 0x5c]) },
        { ...base, basketId: 'BY-2', consumerToken: 'card "7" \\ {x}', totalValueMinor: null },
        // Texts that an array literal would read otherwise unless quoted and escaped.
        { ...base, basketId: 'BY-3,"NULL" \\ {}', consumerToken: 'NULL', giftCardId: '' },
      ];
      expect(await Promise.all(rows.map((w) => writer.write(w)))).toEqual([1, 1, 1, 1]);
      expect(statements()).toBe(1);
      const stored = await t.database.db
        .selectFrom('baskets')
        .select([
          'basket_id',
          sql<string>`body::text`.as('body'),
          sql<string>`result::text`.as('result'),
          'bill_pdf',
          'consumer_token',
          'gift_card_id',
          'total_value_minor',
        ])
        .where('tracking_unit_id', '=', term.trackingUnitId)
        .where('basket_id', 'like', 'BY-%')
        .orderBy('basket_id')
        .execute();
      expect(
        stored.map((r) => [
          r.basket_id,
          r.body,
          r.result,
          r.bill_pdf === null ? null : Buffer.from(r.bill_pdf).toString('hex'),
          r.consumer_token,
          r.gift_card_id,
          r.total_value_minor,
        ]),
      ).toEqual(
        rows.map((w) => [
          w.basketId,
          w.bodyJson,
          w.resultJson,
          w.billPdf?.toString('hex') ?? null,
          w.consumerToken,
          w.giftCardId,
          w.totalValueMinor,
        ]),
      );
    });

    it("the bill number stored is the body's: the one passed, or read from the body when none is", async () => {
      const writer = new BasketWriter(counted().database, { concurrency: 1, maxBatch: 64 });
      const body = (bill: string) => `{"Timestamp":"2026-03-02T13:00:00+01:00","BillNumber":${bill}}`;
      const rows: BasketWrite[] = [
        { ...base, basketId: 'BN-0', bodyJson: body('"R-1"'), billNumber: 'R-1' },
        { ...base, basketId: 'BN-1', bodyJson: body('"R-2"') },
        { ...base, basketId: 'BN-2', bodyJson: body('1e2') },
        { ...base, basketId: 'BN-3', bodyJson: body('null') },
        { ...base, basketId: 'BN-4' },
      ];
      const stored = async () =>
        (
          await t.database.db
            .selectFrom('baskets')
            .select(['bill_number', sql<string | null>`body->>'BillNumber'`.as('in_body')])
            .where('tracking_unit_id', '=', term.trackingUnitId)
            .where('basket_id', 'like', 'BN-%')
            .orderBy('basket_id')
            .execute()
        ).map((r) => [r.bill_number, r.in_body]);
      const expected = [
        ['R-1', 'R-1'],
        ['R-2', 'R-2'],
        ['1e2', '1e2'],
        [null, null],
        [null, null],
      ];
      // In one batch (new baskets), then each again alone (write_basket's update of a stored one).
      expect(await Promise.all(rows.map((w) => writer.write(w)))).toEqual([1, 1, 1, 1, 1]);
      expect(await stored()).toEqual(expected);
      for (const w of rows) expect(await writer.write(w)).toBe(2);
      expect(await stored()).toEqual(expected);
    });

    it("a batch that fails is written again row by row, so one basket's trouble is only its own", async () => {
      const writer = new BasketWriter(counted().database, { concurrency: 1, maxBatch: 64 });
      const outcomes = await Promise.allSettled([
        writer.write({ ...base, basketId: 'RB-0' }),
        writer.write({ ...base, basketId: 'RB-1' }),
        // char(3): the database refuses this row, and with it the batch it is in.
        writer.write({ ...base, basketId: 'RB-2', currency: 'EURO' }),
        writer.write({ ...base, basketId: 'RB-3' }),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      const stored = await t.database.db
        .selectFrom('baskets')
        .select('basket_id')
        .where('tracking_unit_id', '=', term.trackingUnitId)
        .where('basket_id', 'like', 'RB-%')
        .orderBy('basket_id')
        .execute();
      expect(stored.map((r) => r.basket_id)).toEqual(['RB-0', 'RB-1', 'RB-3']);
    });

    it('a row whose terminal changed writes nothing and answers null, the others are written', async () => {
      const writer = new BasketWriter(counted().database, { concurrency: 1, maxBatch: 64 });
      const revisions = await Promise.all([
        writer.write({ ...base, basketId: 'TC-0' }),
        writer.write({ ...base, basketId: 'TC-1', rulesVersion: base.rulesVersion + 1 }),
        writer.write({ ...base, basketId: 'TC-2' }),
      ]);
      expect(revisions).toEqual([1, null, 1]);
    });
  },
);
