import { createHash, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placeOrderAtOnce } from '../../src/orders/order-at-once.js';
import { placeOrderUnderKey } from '../../src/orders/order-idempotent.js';
import type { OrderOutcome, OrderWrite, OrderWriter } from '../../src/orders/order-write.store.js';
import type { CheckoutCaller, OrderInput } from '../../src/orders/order.service.js';
import { errorPayload } from '../../src/wire/error-render.js';
import { type TestApp, databases, startApp } from '../support/harness.js';
import { Receiver } from '../support/webhook-receiver.js';
import type { CheckoutClient } from './checkout-support.js';
import { callerOf, expectLedgerSound, orderBody, setupCheckout } from './checkout-support.js';

/**
 * Checkout v1, "Create order": an order is written in one statement (with the orders of other
 * requests, `POST /api/v1/orders`) or, when that way does not take it, in separate statements
 * from a fresh lookup. Whichever way, the order paid from the profile balance, against a balance
 * reservation or not, gets the same order response (balance oldAmount, newAmount and its
 * reservation's reservedAmountUsed and unreservedAmountUsed), the same ledger postings and the same
 * transaction.status.changed webhook events. Two merchants set up alike take the same orders, one
 * each way. The orders of one statement written together in one batch are decided as if each
 * were written alone, one after the other: a third merchant takes all of a scenario's orders in
 * one batch and gets the same answers, postings and events. With a campaign whose budget has
 * fewer redemptions than the orders, or whose usage limit per customer they pass, the orders of the
 * batch past what is left are written by the separate statements once the batch is written, and
 * each merchant's campaign books the same.
 */

interface Way {
  readonly c: CheckoutClient;
  readonly caller: CheckoutCaller;
  /** Places the order; its status and text. */
  readonly place: (body: Record<string, unknown>) => Promise<{ status: number; text: string }>;
}

const reservationArb = fc.record({
  amount: fc.integer({ min: 1, max: 20 }).map((n) => n * 100),
  /** The reservation is the other profile's: never charged for this one. */
  others: fc.boolean(),
  expired: fc.boolean(),
  cancelled: fc.boolean(),
});

const orderArb = fc.record({
  /** Of PLU 1004, 1.00 each. */
  quantity: fc.integer({ min: 1, max: 25 }),
  requestCharge: fc.boolean(),
  /** Index into the reservations made (past their end: a reference nobody reserved). */
  reservation: fc.option(fc.nat(2), { nil: undefined }),
  cancelRemainingAmount: fc.boolean(),
  byOneTimePassword: fc.boolean(),
  /** The basketId of the order before: order_exists. */
  sameBasket: fc.boolean(),
  /**
   * With the scenario's campaign: sent with the total quoted before its first order, as an app that
   * quoted before a rush (past what is left, refused naming the total without the reward).
   */
  quotedBefore: fc.boolean(),
});

const scenarioArb = fc.record({
  /**
   * A campaign of 10 % off PLU 1004 for this scenario (absent: none), with a budget of `count`
   * redemptions or, `perCustomer`, a usage limit of `count` (at least 1) per customer: orders in one
   * batch book it one after the other, and one past what is left (or a second of the same customer)
   * is written by the separate statements after the batch.
   */
  limited: fc.option(fc.record({ count: fc.integer({ min: 0, max: 3 }), perCustomer: fc.boolean() }), {
    nil: undefined,
  }),
  balance: fc.integer({ min: 0, max: 40 }).map((n) => n * 100),
  isChargeAllowed: fc.boolean(),
  reservations: fc.array(reservationArb, { maxLength: 3 }),
  orders: fc.array(orderArb, { minLength: 1, maxLength: 3 }),
});
/** A reservation reference no reservation has. */
const NOBODY_RESERVED = '00000000-0000-4000-8000-000000000000';

type Scenario = typeof scenarioArb extends fc.Arbitrary<infer S> ? S : never;

describe.each(databases)(
  'an order paid from the profile balance, the same whichever way it is written, on %s',
  (kind) => {
    let t: TestApp;
    let fast: Way;
    let slow: Way;
    let batch: Way;
    const receiver = new Receiver();
    beforeAll(async () => {
      await receiver.start();
      t = await startApp(kind, { webhookAllowPrivate: true });
      const way = async (one: boolean): Promise<Way> => {
        const c = await setupCheckout(t);
        const hook = await c.call('POST', '/api/v1/webhooks', {
          url: receiver.url,
          event: 'transaction.status.changed',
        });
        if (hook.statusCode !== 201) throw new Error(`webhook: ${hook.body}`);
        const caller = await callerOf(t, c);
        const place = one
          ? async (body: Record<string, unknown>) => {
              const r = await c.order(body);
              return { status: r.statusCode, text: r.body };
            }
          : async (body: Record<string, unknown>) => {
              // The route's way when the one statement does not take the order.
              const kept = await placeOrderUnderKey(
                t.app.services.checkout,
                caller,
                body as unknown as OrderInput,
                {
                  idempotencyKey: randomUUID(),
                  bodySha256: createHash('sha256').update(JSON.stringify(body)).digest('hex'),
                },
                (err) => ({
                  status: err.entry.status,
                  text: errorPayload(err, { pos: false, format: 'json' }, null, 'request').text,
                }),
              );
              return { status: kept.status, text: kept.body };
            };
        return { c, caller, place };
      };
      fast = await way(true);
      slow = await way(false);
      batch = await way(true);
    });

    /**
     * The orders' answers when all of them go to the order writer in one batch, in the order
     * given: each is prepared by the route's one-statement way, whose write is held until all are
     * prepared and then given to the writer in one turn of the event loop.
     */
    async function inOneBatch(w: Way, bodies: Record<string, unknown>[], limited: boolean) {
      const deps = t.app.services.checkout;
      const held = new Map<string, { write: OrderWrite; settle: (o: Promise<OrderOutcome>) => void }>();
      const holding = {
        place: (write: OrderWrite) =>
          new Promise<OrderOutcome>((resolve) => held.set(write.idempotencyKey, { write, settle: resolve })),
      } as unknown as OrderWriter;
      const keys = bodies.map(() => randomUUID());
      const answers = bodies.map((body, i) =>
        placeOrderAtOnce(
          { ...deps, orders: holding },
          w.caller,
          body as unknown as OrderInput,
          {
            idempotencyKey: keys[i] as string,
            bodySha256: createHash('sha256').update(JSON.stringify(body)).digest('hex'),
          },
          'req',
        ),
      );
      // An order the way refuses before its write (its total is one without the reward, where the
      // budget had some left when it was priced) answers null at once and is never held.
      let early = 0;
      for (const a of answers) void a.then((r) => (early += r === null ? 1 : 0));
      for (let waited = 0; held.size + early < bodies.length; waited++) {
        if (waited > 500) throw new Error(`only ${held.size} of ${bodies.length} orders were prepared`);
        await new Promise((r) => setTimeout(r, 10));
      }
      // One turn of the event loop: the writer takes them as one batch, in this order.
      for (const key of keys) {
        const h = held.get(key);
        if (!h && !limited) throw new Error('an order was not prepared');
        h?.settle(deps.orders.place(h.write));
      }
      const taken = await Promise.all(answers);
      // An order past what is left of the budget (or the customer's uses) is left to the separate
      // statements (null), as the route does: written after the batch, in the order of the orders.
      // Without such a campaign the batch
      // takes every order.
      const out: { status: number; text: string }[] = [];
      for (const [i, r] of taken.entries()) {
        if (r === null && !limited) throw new Error('the one-statement way did not take the order');
        if (r !== null) {
          out.push({ status: r.status, text: r.body });
          continue;
        }
        const body = bodies[i] as Record<string, unknown>;
        const kept = await placeOrderUnderKey(
          deps,
          w.caller,
          body as unknown as OrderInput,
          {
            idempotencyKey: keys[i] as string,
            bodySha256: createHash('sha256').update(JSON.stringify(body)).digest('hex'),
          },
          (err) => ({
            status: err.entry.status,
            text: errorPayload(err, { pos: false, format: 'json' }, null, 'request').text,
          }),
        );
        out.push({ status: kept.status, text: kept.body });
      }
      return out;
    }
    afterAll(async () => {
      await expectLedgerSound(t);
      await t.close();
      await receiver.stop();
    });

    /** The profiles and reservations of a scenario at one merchant; the names that differ between them. */
    async function prepare(w: Way, s: Scenario) {
      const profile = await w.c.profile({
        balance: s.balance,
        balanceConfig: { isChargeAllowed: s.isChargeAllowed },
      });
      const other = await w.c.profile({ balance: 1_000 });
      const references: string[] = [];
      for (const r of s.reservations) {
        const owner = r.others ? other : profile;
        const made = await w.c.call('POST', `/api/v1/profiles/${owner.card}/reservations`, {
          amount: r.amount,
          currency: 'EUR',
          expiresInSeconds: r.expired ? 60 : 3_600,
        });
        const reference = made.statusCode === 201 ? (made.json().reference as string) : randomUUID();
        if (made.statusCode === 201 && r.cancelled) {
          await w.c.call('DELETE', `/api/v1/reservations/${reference}`);
        }
        references.push(reference);
      }
      /** The cards, then the one-time passwords as they are issued. */
      const names = [profile.card, other.card];
      return { profile, other, references, names };
    }

    /** What the merchant's ledger and outbox hold so far (to read only what comes after). */
    async function marks(w: Way) {
      const db = t.database.db;
      const transfer = await db
        .selectFrom('ledger_transfers')
        .select((eb) => eb.fn.max('id').as('id'))
        .where('merchant_id', '=', w.caller.merchantId)
        .executeTakeFirst();
      const message = await db
        .selectFrom('outbox_messages')
        .select((eb) => eb.fn.max('id').as('id'))
        .where('merchant_id', '=', w.caller.merchantId)
        .executeTakeFirst();
      return { transfer: Number(transfer?.id ?? 0), message: Number(message?.id ?? 0) };
    }

    /** Text with the names that differ between the two merchants replaced by their roles. */
    const neutral = (text: string, names: readonly string[]) =>
      names
        .reduce((x, name, i) => x.split(name).join(`<name ${i}>`), text)
        .replace(/receipts\/[A-Za-z0-9_-]+/g, 'receipts/<id>');

    /** The ledger postings and webhook events after the marks, in the merchant-neutral form. */
    async function written(
      w: Way,
      from: { transfer: number; message: number },
      names: string[],
      accounts: number[],
    ) {
      const db = t.database.db;
      const transfers = await db
        .selectFrom('ledger_transfers')
        .select([
          'kind',
          'debit_account_id',
          'credit_account_id',
          'amount_minor',
          'currency',
          'balance_after_minor',
        ])
        .select(['authorised_by'])
        .where('merchant_id', '=', w.caller.merchantId)
        .where('id', '>', from.transfer)
        .orderBy('id')
        .execute();
      const role = (id: number) => {
        const i = accounts.indexOf(Number(id));
        return i >= 0 ? `profile ${i}` : 'liability';
      };
      const postings = transfers.map((x) => ({
        kind: x.kind,
        debit: role(x.debit_account_id),
        credit: role(x.credit_account_id),
        amount: Number(x.amount_minor),
        currency: x.currency.trim(),
        balanceAfter: x.balance_after_minor === null ? null : Number(x.balance_after_minor),
        authorisedBy: x.authorised_by,
      }));
      const messages = await db
        .selectFrom('outbox_messages')
        .select(['payload'])
        .where('merchant_id', '=', w.caller.merchantId)
        .where('topic', '=', 'webhook.delivery')
        .where('id', '>', from.message)
        .orderBy('id')
        .execute();
      const transactions: string[] = [];
      const events = messages.map((m) => {
        const body = (m.payload as unknown as { body: { data: { transactionId: string } } }).body;
        const id = body.data.transactionId;
        if (!transactions.includes(id)) transactions.push(id);
        const data = { ...body.data, transactionId: `<transaction ${transactions.indexOf(id)}>` };
        return JSON.parse(neutral(JSON.stringify({ ...body, data }), names)) as unknown;
      });
      return { postings, events };
    }

    /** 10 % off PLU 1004, limited as the scenario says, at the merchant of `w`: its id. */
    async function limitedCampaign(w: Way, limited: NonNullable<Scenario['limited']>): Promise<number> {
      const u = encodeURIComponent(w.c.serviceUserName);
      const redemptions = limited.count;
      const res = await t.admin('POST', `/merchants/${u}/campaigns`, {
        name: `Ten off 1004, ${redemptions} ${limited.perCustomer ? 'per customer' : 'redemptions'}`,
        type: 'product',
        discount: { percent: 10 },
        products: [{ plu: '1004' }],
        ...(limited.perCustomer
          ? { usageLimitPerConsumer: Math.max(1, redemptions) }
          : { budget: { redemptions: Math.max(1, redemptions) } }),
      });
      if (res.statusCode !== 201) throw new Error(`campaign: ${res.body}`);
      const id = (res.json() as { id: number }).id;
      if (redemptions === 0 && !limited.perCustomer) {
        // No redemption left: booked as used up (as if other orders had taken it).
        await t.database.db
          .insertInto('campaign_budget_usage')
          .values({
            merchant_id: w.caller.merchantId,
            campaign_id: id,
            period: 'total',
            discount_minor: 0,
            redemptions: 1,
          })
          .execute();
      }
      return id;
    }

    /** The total of `quantity` of PLU 1004 as the app's quote (`POST /api/v1/baskets`) shows it. */
    async function quoted(w: Way, p: Awaited<ReturnType<typeof prepare>>, quantity: number) {
      const res = await w.c.call(
        'POST',
        '/api/v1/baskets',
        orderBody(w.c, p.profile.card, [['1004', quantity]], { totalGross: undefined }),
      );
      if (res.statusCode !== 200) throw new Error(`quote: ${res.body}`);
      return res.json().totalGross as number;
    }

    /**
     * What the orders booked of a campaign's budget and uses (a batch that locked the budget and booked none
     * of it leaves its rows at nothing used, where the separate statements' rollback leaves none).
     */
    async function budgetUsed(campaignId: number) {
      const rows = await t.database.db
        .selectFrom('campaign_budget_usage')
        .select(['period', 'discount_minor', 'redemptions'])
        .where('campaign_id', '=', campaignId)
        .orderBy('period')
        .execute();
      // And the uses the orders booked of a campaign limited per customer.
      const uses = await t.database.db
        .selectFrom('order_campaign_usages')
        .select(['used', 'released'])
        .where('campaign_id', '=', campaignId)
        .execute();
      return {
        budget: rows.filter((r) => Number(r.discount_minor) !== 0 || r.redemptions !== 0),
        uses: uses.reduce((n, u) => n + u.used - u.released, 0),
      };
    }

    async function accountsOf(w: Way, profileIds: number[]): Promise<number[]> {
      const rows = await t.database.db
        .selectFrom('profiles')
        .select(['id', 'account_id'])
        .where('id', 'in', profileIds)
        .execute();
      return profileIds.map((id) => Number(rows.find((r) => r.id === id)?.account_id ?? 0));
    }

    it('whichever way an order is written, it gets the same order response, ledger postings and webhook events', async () => {
      await fc.assert(
        fc.asyncProperty(scenarioArb, async (s) => {
          const campaigns =
            s.limited === undefined
              ? []
              : await Promise.all(
                  [fast, slow, batch].map((w) =>
                    limitedCampaign(w, s.limited as NonNullable<Scenario['limited']>),
                  ),
                );
          try {
            await sameEveryWay(s, campaigns);
          } finally {
            // Ended whatever the outcome: the next scenario starts without it.
            for (const [i, w] of campaigns.length > 0 ? [fast, slow, batch].entries() : []) {
              const u = encodeURIComponent(w.c.serviceUserName);
              await t.admin('DELETE', `/merchants/${u}/campaigns/${campaigns[i] as number}`);
            }
          }
        }),
        { numRuns: 15 },
      );
    }, 300_000);

    /** One scenario written the three ways (with its limited campaign, when it has one). */
    async function sameEveryWay(s: Scenario, campaigns: number[]) {
      const [a, b, c] = [await prepare(fast, s), await prepare(slow, s), await prepare(batch, s)];
      // The batch's orders are priced from the menu as it is now (with the new campaign).
      t.app.services.checkout.menus.forget(batch.caller.merchantId, batch.c.menuId);
      // The reservations made to expire have (60 s), the others not (an hour).
      t.clock.advance(61_000);
      const [fromA, fromB, fromC] = [await marks(fast), await marks(slow), await marks(batch)];
      type Prepared = Awaited<ReturnType<typeof prepare>>;
      const bodyOf = async (
        w: Way,
        p: Prepared,
        o: (typeof s.orders)[number],
        basketId: string,
        total: number,
      ) => {
        const reference = o.byOneTimePassword ? await w.c.otp(p.profile.id) : p.profile.card;
        if (o.byOneTimePassword) p.names.push(reference);
        const reservation =
          o.reservation === undefined
            ? undefined
            : {
                reference: p.references[o.reservation] ?? NOBODY_RESERVED,
                cancelRemainingAmount: o.cancelRemainingAmount,
              };
        return orderBody(w.c, reference, [['1004', o.quantity]], {
          basketId,
          totalGross: total,
          ...(o.requestCharge || reservation
            ? { balance: { requestCharge: o.requestCharge, ...(reservation ? { reservation } : {}) } }
            : {}),
        });
      };
      const rendered = (w: Way, p: Prepared, r: { status: number; text: string }) => {
        const answer = JSON.parse(r.text) as { error?: Record<string, unknown>; menuId?: unknown };
        // The request's id and each merchant's own menu differ; nothing else may.
        if (answer.error) delete answer.error.requestId;
        if (answer.menuId === w.c.menuId) answer.menuId = '<menu>';
        return `${r.status} ${neutral(JSON.stringify(answer), p.names)}`;
      };
      let basketId = randomUUID();
      const alone: string[] = [];
      const batched: Record<string, unknown>[] = [];
      const before =
        s.limited === undefined ? [] : await Promise.all(s.orders.map((o) => quoted(fast, a, o.quantity)));
      for (const [i, o] of s.orders.entries()) {
        if (!o.sameBasket) basketId = randomUUID();
        // The total the app's quote shows now (with the campaign it depends on what is left of the
        // budget); both merchants stand alike, and the batch's order is sent with it too.
        const total =
          s.limited === undefined
            ? o.quantity * 100
            : o.quotedBefore
              ? (before[i] as number)
              : await quoted(fast, a, o.quantity);
        const answers: string[] = [];
        for (const [w, p] of [
          [fast, a],
          [slow, b],
        ] as const) {
          answers.push(rendered(w, p, await w.place(await bodyOf(w, p, o, basketId, total))));
        }
        expect(answers[1]).toBe(answers[0]);
        alone.push(answers[0] as string);
        batched.push(await bodyOf(batch, c, o, basketId, total));
      }
      const together = (await inOneBatch(batch, batched, s.limited !== undefined)).map((r) =>
        rendered(batch, c, r),
      );
      expect(together).toEqual(alone);
      const [accountsA, accountsB, accountsC] = [
        await accountsOf(fast, [a.profile.id, a.other.id]),
        await accountsOf(slow, [b.profile.id, b.other.id]),
        await accountsOf(batch, [c.profile.id, c.other.id]),
      ];
      const writtenA = await written(fast, fromA, a.names, accountsA);
      const writtenB = await written(slow, fromB, b.names, accountsB);
      const writtenC = await written(batch, fromC, c.names, accountsC);
      expect(writtenB.postings).toEqual(writtenA.postings);
      expect(writtenB.events).toEqual(writtenA.events);
      expect(writtenC.postings).toEqual(writtenA.postings);
      expect(writtenC.events).toEqual(writtenA.events);
      if (campaigns.length > 0) {
        const [usedA, usedB, usedC] = await Promise.all(campaigns.map(budgetUsed));
        expect(usedB).toEqual(usedA);
        expect(usedC).toEqual(usedA);
      }
    }
  },
);
