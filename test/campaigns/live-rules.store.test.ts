import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuleSetCache, loadMerchantRules } from '../../src/campaigns/live-rules.store.js';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';

describe.each(databases)('rule sets for basket evaluation on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let merchantId: number;
  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    merchantId = (
      await t.database.db
        .selectFrom('merchants')
        .select('id')
        .where('service_user_name', '=', term.serviceUserName)
        .executeTakeFirstOrThrow()
    ).id;
  });
  afterAll(() => t?.close());

  const create = (name: string) =>
    t.admin('POST', `/merchants/${encodeURIComponent(term.serviceUserName)}/campaigns`, {
      name,
      type: 'product',
      discount: { percent: 10 },
      products: [{ plu: 'A' }],
    });

  it('is memoised per rules version and rebuilt when the rules change', async () => {
    const ruleSets = new RuleSetCache(t.database.db);
    await create('First');
    const v1 = (await loadMerchantRules(t.database.db, merchantId)).rulesVersion;
    const a = await ruleSets.get(merchantId, v1);
    const b = await ruleSets.get(merchantId, v1);
    expect(b).toBe(a);
    expect([...a.campaignsById.values()].map((c) => c.name)).toEqual(['First']);
    expect(a.index.size).toBe(1);

    await create('Second');
    const v2 = (await loadMerchantRules(t.database.db, merchantId)).rulesVersion;
    expect(v2).toBeGreaterThan(v1);
    const c = await ruleSets.get(merchantId, v2);
    expect(c).not.toBe(a);
    expect(c.rulesVersion).toBe(v2);
    expect([...c.campaignsById.values()].map((x) => x.name)).toEqual(['First', 'Second']);
    // A request that read the older version may get the newer set; never an older one.
    expect(await ruleSets.get(merchantId, v1)).toBe(c);
  });

  it('keeps at most maxMerchants merchants, least recently used out first', async () => {
    const cache = new RuleSetCache(t.database.db, 2);
    await cache.get(merchantId, 0);
    await cache.get(merchantId + 1000, 0);
    await cache.get(merchantId, 0);
    await cache.get(merchantId + 2000, 0);
    expect(cache.size).toBe(2);
    const first = await cache.get(merchantId, 0);
    expect(await cache.get(merchantId, 0)).toBe(first);
  });
});
