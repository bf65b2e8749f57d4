import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCampaignVersions, loadMerchantRules } from '../../src/campaigns/live-rules.store.js';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';

const productCampaign = (extra: Record<string, unknown> = {}) => ({
  name: 'Beer 20 %',
  type: 'product',
  discount: { percent: 20 },
  products: [{ plu: '1001' }, { group: 'BEER' }],
  ...extra,
});

interface ErrorBody {
  error: { code: string; message: string; details?: { field?: string } };
}

describe.each(databases)('campaign management on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let other: Terminal;
  let base: string;
  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    other = await setupTerminal(t);
    base = `/merchants/${encodeURIComponent(term.serviceUserName)}/campaigns`;
  });
  afterAll(() => t?.close());

  async function rulesVersion(serviceUserName: string): Promise<number> {
    const row = await t.database.db
      .selectFrom('merchants')
      .select('rules_version')
      .where('service_user_name', '=', serviceUserName)
      .executeTakeFirstOrThrow();
    return row.rules_version;
  }

  async function merchantId(serviceUserName: string): Promise<number> {
    const row = await t.database.db
      .selectFrom('merchants')
      .select('id')
      .where('service_user_name', '=', serviceUserName)
      .executeTakeFirstOrThrow();
    return row.id;
  }

  it('campaigns.happy: create answers 201 {id, version 1}, read answers the definition, rules version rises', async () => {
    const before = await rulesVersion(term.serviceUserName);
    const res = await t.admin(
      'POST',
      base,
      productCampaign({ outletIds: [term.outletId], couponCode: 'SUMMER' }),
    );
    expect(res.statusCode).toBe(201);
    const { id, version } = res.json() as { id: number; version: number };
    expect(version).toBe(1);
    expect(await rulesVersion(term.serviceUserName)).toBe(before + 1);

    const read = await t.admin('GET', `${base}/${id}`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({
      id,
      version: 1,
      name: 'Beer 20 %',
      type: 'product',
      discount: { percent: 20 },
      couponCode: 'SUMMER',
      endedAt: null,
    });
    const byId = await t.admin('GET', `/campaigns/${id}`);
    expect(byId.statusCode).toBe(200);
    expect(byId.json()).toEqual(read.json());
  });

  it('campaigns.happy: field names are matched case-insensitively', async () => {
    const res = await t.admin('POST', base, {
      Name: 'Cake combo',
      TYPE: 'combination',
      Discount: { Amount: 2 },
      Combination: [{ PLU: 'A', Quantity: 1 }, { Group: 'CAKE' }],
    });
    expect(res.statusCode).toBe(201);
    const rules = await loadMerchantRules(t.database.db, await merchantId(term.serviceUserName));
    const c = rules.campaigns.find((x) => x.id === (res.json() as { id: number }).id);
    expect(c?.combination).toEqual([
      { selector: { plu: 'A' }, quantity: 1 },
      { selector: { group: 'CAKE' }, quantity: 1 },
    ]);
    expect(c?.discount).toEqual({ kind: 'amount', minor: 200 });
  });

  it('campaigns.happy: update makes a new version, old versions stay retrievable and loadable', async () => {
    const created = await t.admin('POST', base, productCampaign());
    const { id } = created.json() as { id: number };
    const put = await t.admin('PUT', `${base}/${id}`, productCampaign({ discount: { percent: 12.5 } }));
    expect(put.statusCode).toBe(200);
    expect(put.json()).toEqual({ id, version: 2 });

    const current = await t.admin('GET', `${base}/${id}`);
    expect(current.json()).toMatchObject({ version: 2, discount: { percent: 12.5 } });
    const v1 = await t.admin('GET', `${base}/${id}/versions/1`);
    expect(v1.statusCode).toBe(200);
    expect(v1.json()).toMatchObject({ id, version: 1, discount: { percent: 20 } });

    const mid = await merchantId(term.serviceUserName);
    const versions = await loadCampaignVersions(t.database.db, mid, [
      { id, version: 1 },
      { id, version: 2 },
    ]);
    expect(versions.map((c) => [c.version, c.discount])).toEqual([
      [1, { kind: 'percent', bp: 2000 }],
      [2, { kind: 'percent', bp: 1250 }],
    ]);
    // Another merchant cannot load them.
    expect(
      await loadCampaignVersions(t.database.db, await merchantId(other.serviceUserName), [
        { id, version: 1 },
      ]),
    ).toEqual([]);
    // The operator may address it by its id alone: the same update, the next version.
    const byId = await t.admin('PUT', `/campaigns/${id}`, productCampaign({ discount: { percent: 15 } }));
    expect(byId.statusCode, byId.body).toBe(200);
    expect(byId.json()).toEqual({ id, version: 3 });
  });

  it('campaigns.happy: end keeps the history, stops the campaign, lists filter by status', async () => {
    const { id } = (await t.admin('POST', base, productCampaign({ name: 'To end' }))).json() as {
      id: number;
    };
    const before = await rulesVersion(term.serviceUserName);
    const del = await t.admin('DELETE', `${base}/${id}`);
    expect(del.statusCode).toBe(200);
    expect((del.json() as { endedAt: string | null }).endedAt).not.toBeNull();
    expect(await rulesVersion(term.serviceUserName)).toBeGreaterThan(before);

    const again = await t.admin('DELETE', `/campaigns/${id}`);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(del.json());

    const rules = await loadMerchantRules(t.database.db, await merchantId(term.serviceUserName));
    expect(rules.campaigns.some((c) => c.id === id)).toBe(false);
    expect(rules.rulesVersion).toBe(await rulesVersion(term.serviceUserName));

    const ended = (await t.admin('GET', `${base}?status=ended&limit=100`)).json().data as { id: number }[];
    const active = (await t.admin('GET', `${base}?status=active&limit=100`)).json().data as { id: number }[];
    const all = (await t.admin('GET', `${base}?limit=100`)).json().data as { id: number }[];
    expect(ended.map((c) => c.id)).toContain(id);
    expect(active.map((c) => c.id)).not.toContain(id);
    expect(all.length).toBe(ended.length + active.length);

    const put = await t.admin('PUT', `${base}/${id}`, productCampaign());
    expect(put.statusCode).toBe(409);
    expect((put.json() as ErrorBody).error.code).toBe('rule_ended');
  });

  const refusals: [string, Record<string, unknown>, string][] = [
    [
      'combination without parts',
      { type: 'combination', products: undefined, combination: [] },
      'combination',
    ],
    ['percent above 100', { discount: { percent: 100.5 } }, 'discount.percent'],
    ['percent of 0', { discount: { percent: 0 } }, 'discount.percent'],
    ['percent with three decimals', { discount: { percent: 12.345 } }, 'discount.percent'],
    ['negative amount', { discount: { amount: -1 } }, 'discount.amount'],
    ['amount with three decimals (EUR)', { discount: { amount: 1.005 } }, 'discount.amount'],
    ['two discount kinds', { discount: { percent: 10, amount: 1 } }, 'discount'],
    ['no discount kind', { discount: {} }, 'discount'],
    [
      'price on a bill campaign',
      { type: 'bill', products: undefined, discount: { price: 1 } },
      'discount.price',
    ],
    ['buy 0', { type: 'quantity', buy: 0, get: 1, discount: { percent: 100 } }, 'buy'],
    ['get 0', { type: 'quantity', buy: 2, get: 0, discount: { percent: 100 } }, 'get'],
    ['quantity without buy', { type: 'quantity', get: 1 }, 'buy'],
    ['selector without plu or group', { products: [{ plu: '1' }, {}] }, 'products[1]'],
    ['selector with plu and group', { products: [{ plu: '1', group: 'G' }] }, 'products[0]'],
    ['product campaign without products', { products: undefined }, 'products'],
    ['products on a bill campaign', { type: 'bill' }, 'products'],
    ['minTotal on a product campaign', { minTotal: 10 }, 'minTotal'],
    ['exclusive on a product campaign', { exclusive: true }, 'exclusive'],
    ['schedule from after to', { schedule: [{ days: [1], from: '18:00', to: '16:00' }] }, 'schedule[0]'],
    ['schedule from equal to', { schedule: [{ days: [1], from: '16:00', to: '16:00' }] }, 'schedule[0]'],
    ['schedule time 25:00', { schedule: [{ days: [1], from: '10:00', to: '25:00' }] }, 'schedule[0].to'],
    ['schedule day 8', { schedule: [{ days: [8], from: '10:00', to: '12:00' }] }, 'schedule[0].days[0]'],
    ['schedule without days', { schedule: [{ days: [], from: '10:00', to: '12:00' }] }, 'schedule[0].days'],
    [
      'validFrom after validTo',
      { validFrom: '2026-04-01T00:00:00+02:00', validTo: '2026-03-01T00:00:00+01:00' },
      'validTo',
    ],
    ['validFrom not a date', { validFrom: 'tomorrow' }, 'validFrom'],
    ['unknown outlet', { outletIds: [987654321] }, 'outletIds'],
    ['empty outlet list', { outletIds: [] }, 'outletIds'],
    ['maxApplications 0', { maxApplications: 0 }, 'maxApplications'],
    ['usage limit 0', { usageLimitPerConsumer: 0 }, 'usageLimitPerConsumer'],
    ['empty coupon code', { couponCode: '  ' }, 'couponCode'],
    ['empty channel list', { channels: [] }, 'channels'],
  ];

  it.each(refusals)(
    'campaigns.error: %s is refused with 400 naming the field',
    async (_name, patch, field) => {
      const before = await rulesVersion(term.serviceUserName);
      const count = ((await t.admin('GET', `${base}?limit=100`)).json().data as unknown[]).length;
      const res = await t.admin('POST', base, productCampaign(patch));
      expect(res.statusCode).toBe(400);
      const body = res.json() as ErrorBody;
      expect(body.error.code).toBe('invalid_request');
      expect(body.error.details?.field).toBe(field);
      expect(body.error.message).toContain(field);
      expect(await rulesVersion(term.serviceUserName)).toBe(before);
      expect(((await t.admin('GET', `${base}?limit=100`)).json().data as unknown[]).length).toBe(count);
    },
  );

  it('campaigns.error: schema violations (missing name, unknown type) answer 400 invalid_request', async () => {
    const noName = await t.admin('POST', base, { type: 'product', discount: { percent: 1 }, products: [] });
    expect(noName.statusCode).toBe(400);
    expect((noName.json() as ErrorBody).error.message).toMatch(/name/);
    const badType = await t.admin('POST', base, productCampaign({ type: 'lottery' }));
    expect(badType.statusCode).toBe(400);
  });

  it('campaigns.error: an invalid update changes nothing', async () => {
    const { id } = (await t.admin('POST', base, productCampaign())).json() as { id: number };
    const before = await rulesVersion(term.serviceUserName);
    const put = await t.admin('PUT', `${base}/${id}`, productCampaign({ discount: { percent: 101 } }));
    expect(put.statusCode).toBe(400);
    expect((await t.admin('GET', `${base}/${id}`)).json()).toMatchObject({ version: 1 });
    expect(await rulesVersion(term.serviceUserName)).toBe(before);
  });

  it('campaigns.happy: a night window is two windows; "24:00" ends a day', async () => {
    const res = await t.admin(
      'POST',
      base,
      productCampaign({
        schedule: [
          { days: [5], from: '22:00', to: '24:00' },
          { days: [6], from: '00:00', to: '02:00' },
        ],
      }),
    );
    expect(res.statusCode).toBe(201);
  });

  it("campaigns.security: another merchant's campaign answers like an unknown one", async () => {
    const { id } = (await t.admin('POST', base, productCampaign())).json() as { id: number };
    const foreign = `/merchants/${encodeURIComponent(other.serviceUserName)}/campaigns/${id}`;
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', productCampaign()],
      ['DELETE', undefined],
    ] as const) {
      const res = await t.admin(method, foreign, body);
      expect(res.statusCode).toBe(404);
      expect((res.json() as ErrorBody).error.code).toBe('not_found');
    }
    expect(
      (
        await t.admin(
          'GET',
          `/merchants/${encodeURIComponent(other.serviceUserName)}/campaigns/${id}/versions/1`,
        )
      ).statusCode,
    ).toBe(404);
    expect((await t.admin('GET', `${base}/999999999`)).statusCode).toBe(404);
    expect((await t.admin('GET', `/campaigns/999999999`)).statusCode).toBe(404);
    // The outlet of another merchant is not an outlet of this one.
    const foreignOutlet = await t.admin('POST', base, productCampaign({ outletIds: [other.outletId] }));
    expect(foreignOutlet.statusCode).toBe(400);
    // Still unchanged for its owner.
    expect((await t.admin('GET', `${base}/${id}`)).json()).toMatchObject({ version: 1, endedAt: null });
  });

  it('campaigns.security: the operator token is required', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/api/admin/v1${base}` });
    expect(res.statusCode).toBe(401);
    expect((await t.admin('GET', '/merchants/nobody/campaigns')).statusCode).toBe(404);
  });
});

describe.each(databases)('loyalty scheme management on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let other: Terminal;
  let base: string;
  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    other = await setupTerminal(t);
    base = `/merchants/${encodeURIComponent(term.serviceUserName)}/loyaltySchemes`;
  });
  afterAll(() => t?.close());

  const scheme = (extra: Record<string, unknown> = {}) => ({
    name: 'Coffee card',
    earn: [
      { per: 'amount', amount: 1.0, points: 1 },
      { per: 'unit', products: [{ plu: '1001' }], points: 1 },
    ],
    reward: { threshold: 10, type: 'product', products: [{ plu: '1001' }], discount: { percent: 100 } },
    pointsExpireAfterDays: 365,
    ...extra,
  });

  it('schemes.happy: create, read, update, end, and the engine form', async () => {
    const res = await t.admin('POST', base, scheme());
    expect(res.statusCode).toBe(201);
    const { id } = res.json() as { id: number };
    expect((await t.admin('GET', `${base}/${id}`)).json()).toMatchObject({
      id,
      version: 1,
      name: 'Coffee card',
    });
    const put = await t.admin(
      'PUT',
      `/loyaltySchemes/${id}`,
      scheme({ reward: { threshold: 500, type: 'bill', discount: { amount: 5 } } }),
    );
    expect(put.json()).toEqual({ id, version: 2 });

    const mid = (
      await t.database.db
        .selectFrom('merchants')
        .select('id')
        .where('service_user_name', '=', term.serviceUserName)
        .executeTakeFirstOrThrow()
    ).id;
    const rules = await loadMerchantRules(t.database.db, mid);
    expect(rules.schemes).toEqual([
      {
        id,
        version: 2,
        name: 'Coffee card',
        earn: [
          { per: 'amount', amountMinor: 100, points: 1 },
          { per: 'unit', products: [{ plu: '1001' }], points: 1 },
        ],
        reward: { threshold: 500, type: 'bill', discount: { kind: 'amount', minor: 500 } },
        validFromMs: null,
        validToMs: null,
        outletIds: null,
        pointsExpireAfterDays: 365,
      },
    ]);
    const del = await t.admin('DELETE', `${base}/${id}`);
    expect(del.statusCode).toBe(200);
    expect((await loadMerchantRules(t.database.db, mid)).schemes).toEqual([]);
    const list = (await t.admin('GET', `${base}?status=ended&limit=100`)).json().data as { id: number }[];
    expect(list.map((s) => s.id)).toEqual([id]);
  });

  const refusals: [string, Record<string, unknown>, string][] = [
    ['no earn rule', { earn: [] }, 'earn'],
    ['earn points 0', { earn: [{ per: 'amount', amount: 1, points: 0 }] }, 'earn[0].points'],
    ['per amount without amount', { earn: [{ per: 'amount', points: 1 }] }, 'earn[0].amount'],
    ['per amount of 0', { earn: [{ per: 'amount', amount: 0, points: 1 }] }, 'earn[0].amount'],
    ['per unit without products', { earn: [{ per: 'unit', points: 1 }] }, 'earn[0].products'],
    [
      'per unit selector without plu or group',
      { earn: [{ per: 'unit', products: [{}], points: 1 }] },
      'earn[0].products[0]',
    ],
    ['threshold 0', { reward: { threshold: 0, type: 'bill', discount: { amount: 5 } } }, 'reward.threshold'],
    [
      'price on a bill reward',
      { reward: { threshold: 5, type: 'bill', discount: { price: 5 } } },
      'reward.discount.price',
    ],
    [
      'product reward without products',
      { reward: { threshold: 5, type: 'product', discount: { percent: 100 } } },
      'reward.products',
    ],
    [
      'percent above 100',
      { reward: { threshold: 5, type: 'product', products: [], discount: { percent: 150 } } },
      'reward.discount.percent',
    ],
    [
      'validFrom after validTo',
      { validFrom: '2026-05-01T00:00:00Z', validTo: '2026-04-01T00:00:00Z' },
      'validTo',
    ],
    ['unknown outlet', { outletIds: [987654321] }, 'outletIds'],
    ['expiry of 0 days', { pointsExpireAfterDays: 0 }, 'pointsExpireAfterDays'],
  ];

  it.each(refusals)('schemes.error: %s is refused with 400 naming the field', async (_name, patch, field) => {
    const res = await t.admin('POST', base, scheme(patch));
    expect(res.statusCode).toBe(400);
    const body = res.json() as ErrorBody;
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.details?.field).toBe(field);
  });

  it("schemes.security: another merchant's scheme answers like an unknown one", async () => {
    const { id } = (await t.admin('POST', base, scheme())).json() as { id: number };
    const foreign = `/merchants/${encodeURIComponent(other.serviceUserName)}/loyaltySchemes/${id}`;
    expect((await t.admin('GET', foreign)).statusCode).toBe(404);
    expect((await t.admin('PUT', foreign, scheme())).statusCode).toBe(404);
    expect((await t.admin('DELETE', foreign)).statusCode).toBe(404);
    expect((await t.admin('GET', `${base}/${id}`)).json()).toMatchObject({ version: 1, endedAt: null });
  });

  it('schemes.versions: a change through the merchant path is a new version, the old one stays readable; by id alone it is read and ended', async () => {
    const { id } = (await t.admin('POST', base, scheme())).json() as { id: number };
    const put = await t.admin('PUT', `${base}/${id}`, scheme({ pointsExpireAfterDays: 180 }));
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toEqual({ id, version: 2 });
    const v1 = await t.admin('GET', `${base}/${id}/versions/1`);
    expect(v1.statusCode, v1.body).toBe(200);
    expect(v1.json()).toMatchObject({ id, version: 1, pointsExpireAfterDays: 365 });
    expect((await t.admin('GET', `/loyaltySchemes/${id}`)).json()).toMatchObject({
      id,
      version: 2,
      pointsExpireAfterDays: 180,
    });
    const ended = await t.admin('DELETE', `/loyaltySchemes/${id}`);
    expect(ended.statusCode, ended.body).toBe(200);
    expect(ended.json()).toMatchObject({ id, endedAt: expect.any(String) });
  });
});
