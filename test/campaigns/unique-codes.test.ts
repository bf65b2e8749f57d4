import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODE_ALPHABET } from '../../src/campaigns/campaign-codes.js';
import { verifyPoints } from '../../src/loyalty/points-verify.store.js';
import { type Terminal, type TestApp, databases, setupTerminal, startApp } from '../support/harness.js';

interface Reward {
  GrossRewardValue: number;
  CouponId: number;
}
interface Code {
  code: string;
  batchId: number;
  redeemedAt: string | null;
  trackingUnitId: string | null;
  terminalName: string | null;
  outletId: number | null;
  outletName: string | null;
  basketId: string | null;
}

/** 2.00 off the bill, for whoever brings an unused code of the campaign. */
const flyer = { name: 'Flyer 2 off', type: 'bill', discount: { amount: 2 }, uniqueCodes: true };

const basket = (codes: string[]) => ({
  Timestamp: '2026-03-02T12:00:00+01:00',
  HasDiscounts: false,
  CurrencyISO: 'EUR',
  ContextIdentifiers: codes,
  Positions: [{ PositionId: 1, ProductId: '1001', Unit: 0, Amount: 2, CurrentGrossPrice: 5 }],
});

const PATTERN = new RegExp(`^FLY-[${CODE_ALPHABET}]{8}$`);

describe.each(databases)('unique codes of a campaign on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let u: string;
  let campaignId: number;
  let n = 0;
  const basketId = () => `code-basket-${(n += 1)}`;

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    u = encodeURIComponent(term.serviceUserName);
    const res = await t.admin('POST', `/merchants/${u}/campaigns`, flyer);
    expect(res.statusCode, res.body).toBe(201);
    campaignId = (res.json() as { id: number }).id;
  });
  afterAll(() => t?.close());

  const upload = async (id: string, codes: string[]) => {
    const res = await term.pos('POST', `/baskets/${id}`, { body: basket(codes) });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { Rewards: Reward[] }).Rewards;
  };
  const grant = async (id: string) => {
    const res = await term.pos('POST', `/baskets/${id}/grant`, { sign: id });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { Rewards: Reward[] }).Rewards;
  };
  const codes = async (query = '') => {
    const res = await t.admin('GET', `/merchants/${u}/campaigns/${campaignId}/codes?limit=100${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { data: Code[] }).data;
  };
  const batch = async (body: object) =>
    t.admin('POST', `/merchants/${u}/campaigns/${campaignId}/codeBatches`, body);

  it('a batch has count distinct codes: the prefix, then length characters without look-alikes', async () => {
    const res = await batch({ count: 50, prefix: 'fly-', length: 8 });
    expect(res.statusCode, res.body).toBe(201);
    const made = res.json() as {
      id: number;
      prefix: string;
      length: number;
      count: number;
      redeemed: number;
    };
    expect(made).toMatchObject({ campaignId, prefix: 'FLY-', length: 8, count: 50, redeemed: 0 });
    const list = await codes(`&batchId=${made.id}`);
    expect(list).toHaveLength(50);
    expect(new Set(list.map((c) => c.code)).size).toBe(50);
    for (const c of list) {
      expect(c.code).toMatch(PATTERN);
      // The random part has no look-alike characters (the prefix is the merchant's).
      expect(c.code.slice('FLY-'.length)).not.toMatch(/[01OIL]/);
      expect(c.redeemedAt).toBeNull();
    }
    // Paged in code order.
    const first = await t.admin('GET', `/merchants/${u}/campaigns/${campaignId}/codes?limit=20`);
    const page = first.json() as { data: Code[]; hasMore: boolean; nextCursor: string };
    expect(page.hasMore).toBe(true);
    const second = await t.admin(
      'GET',
      `/merchants/${u}/campaigns/${campaignId}/codes?limit=20&cursor=${page.nextCursor}`,
    );
    const next = (second.json() as { data: Code[] }).data;
    expect(next.map((c) => c.code)).toEqual(list.map((c) => c.code).slice(20, 40));
  });

  it('the CSV export holds every code of the batch, one line each, after a header', async () => {
    const made = (await batch({ count: 3, prefix: 'CSV' })).json() as { id: number };
    const res = await t.admin('GET', `/merchants/${u}/campaigns/${campaignId}/codes.csv?batchId=${made.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    const lines = res.body.trimEnd().split('\r\n');
    expect(lines[0]).toBe('code,batch,redeemed_at,terminal,outlet,basket');
    const listed = (await codes(`&batchId=${made.id}`)).map((c) => `${c.code},${made.id},,,,`);
    expect(lines.slice(1)).toEqual(listed);
    for (const c of listed) expect(c).toMatch(/^CSV[A-Z2-9]{10},/);
  });

  it('a code is redeemed once: uploads preview it, the first grant redeems it, the next is granted without the reward', async () => {
    const [code] = (await codes('&redeemed=false')).map((c) => c.code);
    if (!code) throw new Error('no code');
    const [a, b] = [basketId(), basketId()];
    expect(await upload(basketId(), [])).toEqual([]);
    expect(await upload(basketId(), ['NOTACODE1'])).toEqual([]);
    // Sent in lower case, as a cashier may type it: the same code.
    const previewA = await upload(a, [code.toLowerCase()]);
    const previewB = await upload(b, [code]);
    expect(previewA).toEqual([expect.objectContaining({ GrossRewardValue: 2, CouponId: campaignId })]);
    expect(previewB).toEqual(previewA);

    expect(await grant(a)).toEqual(previewA);
    expect(await grant(b)).toEqual([]);
    // A basket uploaded after the grant sees the code used.
    expect(await upload(basketId(), [code])).toEqual([]);

    const [row] = (await codes('&redeemed=true')).filter((c) => c.code === code);
    expect(row).toMatchObject({
      trackingUnitId: term.trackingUnitId,
      terminalName: 'Till 1',
      outletId: term.outletId,
      outletName: 'Main street',
      basketId: a,
    });
    expect(row?.redeemedAt).toBe(new Date(t.clock.nowMs()).toISOString());
    const usages = await t.database.db
      .selectFrom('campaign_usages')
      .select(['basket_id', 'used'])
      .where('campaign_id', '=', campaignId)
      .execute();
    expect(usages).toEqual([{ basket_id: a, used: 1 }]);
  });

  it('a return of the rewarded basket gives the code back, and it is redeemed again', async () => {
    const [code] = (await codes('&redeemed=false')).map((c) => c.code);
    if (!code) throw new Error('no code');
    const a = basketId();
    await upload(a, [code]);
    expect(await grant(a)).toHaveLength(1);
    expect((await codes('&redeemed=true')).map((c) => c.code)).toContain(code);

    const ret = await term.pos('POST', `/baskets/${a}/return`, {
      body: { ReturnId: 'R1', Positions: [{ PositionId: 1, Amount: 2 }] },
      sign: `${a}R1`,
    });
    expect(ret.statusCode, ret.body).toBe(200);
    const back = (await codes()).find((c) => c.code === code);
    expect(back).toMatchObject({ redeemedAt: null, trackingUnitId: null, basketId: null });

    const givenBack = new Date(t.clock.nowMs()).toISOString();
    const found = async (typed: string) =>
      t.admin('GET', `/merchants/${u}/codes/${encodeURIComponent(typed)}`);
    const unused = await found(code);
    expect(unused.statusCode, unused.body).toBe(200);
    expect(unused.json()).toMatchObject({ code, redeemedAt: null, basketId: null, givenBackAt: givenBack });

    const again = basketId();
    expect(await upload(again, [code])).toHaveLength(1);
    t.clock.advance(60_000);
    expect(await grant(again)).toHaveLength(1);
    expect((await codes('&redeemed=true')).find((c) => c.code === code)?.basketId).toBe(again);
    expect((await verifyPoints(t.database.db)).violations).toEqual([]);
    // Looked up as a till compares it: in lower case with blanks around it, its campaign named.
    const redeemed = await found(`  ${code.toLowerCase()} `);
    expect(redeemed.statusCode, redeemed.body).toBe(200);
    expect(redeemed.json()).toEqual({
      code,
      batchId: expect.any(Number),
      campaignId,
      campaignName: flyer.name,
      redeemedAt: new Date(t.clock.nowMs()).toISOString(),
      trackingUnitId: term.trackingUnitId,
      terminalName: 'Till 1',
      outletId: term.outletId,
      outletName: 'Main street',
      basketId: again,
      givenBackAt: givenBack,
    });
    expect((await found('NOTACODE1')).statusCode).toBe(404);
  });

  it('a grant not redeemed at the till (redeemedInPos=false) leaves the code unused', async () => {
    const [code] = (await codes('&redeemed=false')).map((c) => c.code);
    if (!code) throw new Error('no code');
    const a = basketId();
    await upload(a, [code]);
    const res = await term.pos('POST', `/baskets/${a}/grant`, { sign: a, query: { redeemedInPos: 'false' } });
    expect(res.statusCode).toBe(200);
    expect((await codes()).find((c) => c.code === code)?.redeemedAt).toBeNull();
  });

  it('a code of one merchant is nothing at another merchant', async () => {
    const [code] = (await codes('&redeemed=false')).map((c) => c.code);
    if (!code) throw new Error('no code');
    const other = await setupTerminal(t);
    const res = await t.admin(
      'POST',
      `/merchants/${encodeURIComponent(other.serviceUserName)}/campaigns`,
      flyer,
    );
    expect(res.statusCode).toBe(201);
    const up = await other.pos('POST', '/baskets/foreign-1', { body: basket([code]) });
    expect((up.json() as { Rewards: Reward[] }).Rewards).toEqual([]);
    // Nor can it read or make another merchant's codes.
    const foreign = await t.admin(
      'GET',
      `/merchants/${encodeURIComponent(other.serviceUserName)}/campaigns/${campaignId}/codes`,
    );
    expect(foreign.statusCode).toBe(404);
    const looked = await t.admin(
      'GET',
      `/merchants/${encodeURIComponent(other.serviceUserName)}/codes/${encodeURIComponent(code)}`,
    );
    expect(looked.statusCode).toBe(404);
    expect(looked.json()).toMatchObject({ error: { code: 'not_found' } });
  });

  it('refusals: a batch for a campaign without unique codes, bad counts, lengths and prefixes, couponCode with uniqueCodes', async () => {
    const plain = await t.admin('POST', `/merchants/${u}/campaigns`, { ...flyer, uniqueCodes: false });
    const plainId = (plain.json() as { id: number }).id;
    const without = await t.admin('POST', `/merchants/${u}/campaigns/${plainId}/codeBatches`, { count: 1 });
    expect(without.statusCode).toBe(409);
    expect((without.json() as { error: { code: string } }).error.code).toBe('campaign_without_codes');
    for (const [body, field] of [
      [{ count: 0 }, 'count'],
      [{ count: 100_001 }, 'count'],
      [{ count: 1, length: 5 }, 'length'],
      [{ count: 1, length: 33 }, 'length'],
      [{ count: 1, prefix: '-X' }, 'prefix'],
      [{ count: 1, prefix: 'A B' }, 'prefix'],
      [{ count: 1, prefix: 'ABCDEFGHIJKLMNOPQRSTU' }, 'prefix'],
    ] as const) {
      const res = await batch(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect((res.json() as { error: { details: { field: string } } }).error.details.field).toBe(field);
    }
    const both = await t.admin('POST', `/merchants/${u}/campaigns`, { ...flyer, couponCode: 'SUMMER' });
    expect(both.statusCode).toBe(400);
    expect((both.json() as { error: { details: { field: string } } }).error.details.field).toBe(
      'uniqueCodes',
    );
    const unknown = await t.admin('POST', `/merchants/${u}/campaigns/999999/codeBatches`, { count: 1 });
    expect(unknown.statusCode).toBe(404);
    const listed = await t.admin('GET', `/merchants/${u}/campaigns/${campaignId}/codeBatches?limit=1`);
    expect(listed.statusCode).toBe(200);
    expect((listed.json() as { hasMore: boolean }).hasMore).toBe(true);
    // Nothing was made by a refused batch.
    const all = await t.database.db
      .selectFrom('campaign_code_batches')
      .select('id')
      .where('campaign_id', '=', campaignId)
      .execute();
    expect(all).toHaveLength(2);
  });
});
