import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Terminal, type TestApp, databases, setupTerminal, startApp } from '../support/harness.js';

/**
 * A campaign's budget changed while a grant of the campaign runs (docs/decisions.md, "A budget
 * changed while a grant of the campaign runs"): the change waits until the grant, which holds what is
 * left of the budget, has committed, so the grant books against the limits it read. Only PostgreSQL
 * runs a grant and a change of the campaign at the same time (the embedded database has one
 * connection, and a transaction holds it).
 */
describe.runIf(databases.includes('postgres'))('a budget changed during a grant on postgres', () => {
  let t: TestApp;
  let term: Terminal;
  let u: string;

  beforeAll(async () => {
    t = await startApp('postgres');
    term = await setupTerminal(t);
    u = encodeURIComponent(term.serviceUserName);
  });
  afterAll(() => t?.close());

  it('a budget lowered while a grant holds what is left of it waits for that grant, which books in full', async () => {
    const bill = { name: 'Two off', type: 'bill', discount: { amount: 2 } };
    const created = await t.admin('POST', `/merchants/${u}/campaigns`, {
      ...bill,
      budget: { redemptions: 5 },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = (created.json() as { id: number }).id;
    const merchant = await sql<{
      merchant_id: number;
    }>`SELECT merchant_id FROM campaigns WHERE id = ${id}`.execute(t.database.db);
    const merchantId = Number(merchant.rows[0]?.merchant_id);

    // Its usage rows made by an earlier grant: the running grant below only locks them.
    await sql`SELECT lock_campaign_budgets(${merchantId}, ARRAY[${id}]::bigint[], now())`.execute(
      t.database.db,
    );

    let changed: Awaited<ReturnType<TestApp['admin']>> | null = null;
    await t.database.db.transaction().execute(async (grant) => {
      // The grant's lock on what is left (lock_campaign_budgets), then, later, its booking of three redemptions.
      const left = await sql<{ answer: { redemptionsLeft: number }[] }>`
        SELECT lock_campaign_budgets(${merchantId}, ARRAY[${id}]::bigint[], now()) AS answer`.execute(grant);
      expect(left.rows[0]?.answer[0]?.redemptionsLeft).toBe(5);
      const change = t
        .admin('PUT', `/merchants/${u}/campaigns/${id}`, { ...bill, budget: { redemptions: 1 } })
        .then((res) => {
          changed = res;
          return res;
        });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(changed).toBeNull();
      await sql`SELECT book_campaign_budgets(${merchantId}, ${term.trackingUnitId}, 'budget-change-basket',
        ${JSON.stringify([{ campaignId: id, period: null, discountMinor: 600, redemptions: 3 }])}::json, now())`.execute(
        grant,
      );
      void change;
    });
    const deadline = Date.now() + 10_000;
    while (changed === null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const answer = changed as Awaited<ReturnType<TestApp['admin']>> | null;
    expect(answer?.statusCode, answer?.body).toBe(200);
    const used = await sql<{ redemptions: number }>`
      SELECT redemptions FROM campaign_budget_usage WHERE campaign_id = ${id} AND period = 'total'`.execute(
      t.database.db,
    );
    expect(used.rows[0]?.redemptions).toBe(3);
    const read = await t.admin('GET', `/merchants/${u}/campaigns/${id}`);
    expect((read.json() as { budgetRemaining: { redemptions: number } }).budgetRemaining.redemptions).toBe(0);
  });
});
