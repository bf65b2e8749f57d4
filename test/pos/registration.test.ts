import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type TestApp,
  type Terminal,
  databases,
  posCall,
  setupTerminal,
  startApp,
} from '../support/harness.js';

describe.each(databases)('registration and merchants on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t, { serviceUserName: `Bäckerei Köhler ${kind}` });
  });
  afterAll(() => t?.close());

  const register = (query: Record<string, string>, format: 'json' | 'xml' = 'json', devKey = term.devKey) =>
    posCall(t, { devKey }, 'GET', '/trackingUnits', { query, format });

  it('merchant info lists brands with outlets for a URL-escaped non-ASCII user name', async () => {
    const res = await posCall(
      t,
      { devKey: term.devKey },
      'GET',
      `/merchants/${encodeURIComponent(term.serviceUserName)}/info`,
    );
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { brandId: term.brandId, brandName: 'Brand', outlets: [{ Id: term.outletId, Name: 'Main street' }] },
    ]);
  });

  it('merchant info answers XML without Accept and without a body (the documented default)', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/pos/v3/merchants/${encodeURIComponent(term.serviceUserName)}/info`,
      headers: { devkey: term.devKey },
    });
    expect(res.headers['content-type']).toMatch(/application\/xml/);
    expect(res.body).toContain('<ArrayOfMerchantInfo><MerchantInfo><brandId>');
  });

  it('merchant info of an unknown user name is 404', async () => {
    const res = await posCall(t, { devKey: term.devKey }, 'GET', '/merchants/nobody/info');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ ErrorId: 1005 });
  });

  it('a merchant without brands answers 404 like an unknown one', async () => {
    await t.admin('POST', '/merchants', { serviceUserName: `no-brands-${kind}`, displayName: 'x' });
    const res = await posCall(t, { devKey: term.devKey }, 'GET', `/merchants/no-brands-${kind}/info`);
    expect(res.statusCode).toBe(404);
  });

  it('an unknown DevKey is 401 / 1001', async () => {
    const res = await posCall(
      t,
      { devKey: 'wrong' },
      'GET',
      `/merchants/${encodeURIComponent(term.serviceUserName)}/info`,
    );
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ ErrorId: 1001 });
  });

  it('create outlet with a brand of another merchant is 404 / 10004', async () => {
    const other = await setupTerminal(t);
    const res = await posCall(
      t,
      { devKey: term.devKey },
      'POST',
      `/merchants/${encodeURIComponent(term.serviceUserName)}/outlets`,
      { query: { brandId: String(other.brandId) }, body: { Name: 'x' } },
    );
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ ErrorId: 10004 });
  });

  it('registration returns a new trackingUnitId and checksumSecret on every call', async () => {
    const q = {
      serviceUserName: term.serviceUserName,
      outletId: String(term.outletId),
      instanceName: 'Till 2',
    };
    const a = (await register(q)).json() as { trackingUnitId: string; checksumSecret: string };
    const b = (await register(q)).json() as { trackingUnitId: string; checksumSecret: string };
    expect(a.trackingUnitId).not.toBe(b.trackingUnitId);
    expect(a.checksumSecret).toMatch(/^[0-9a-f]{32}$/);
  });

  it('registration in XML answers a TrackingUnit document', async () => {
    const res = await register(
      { serviceUserName: term.serviceUserName, outletId: String(term.outletId), instanceName: 'Till 3' },
      'xml',
    );
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/<TrackingUnit><trackingUnitId>[0-9a-f-]{36}<\/trackingUnitId><checksumSecret>/);
  });

  describe('registration error ids', () => {
    const cases: [string, () => Record<string, string>, number][] = [
      [
        'missing instanceName is 10002',
        () => ({ serviceUserName: term.serviceUserName, outletId: String(term.outletId) }),
        10002,
      ],
      [
        'empty instanceName is 10002',
        () => ({ serviceUserName: term.serviceUserName, outletId: String(term.outletId), instanceName: '' }),
        10002,
      ],
      [
        'unknown serviceUserName is 10001',
        () => ({ serviceUserName: 'nobody', outletId: String(term.outletId), instanceName: 'x' }),
        10001,
      ],
      [
        'outlet of another merchant is 10003',
        () => ({ serviceUserName: term.serviceUserName, outletId: '999999', instanceName: 'x' }),
        10003,
      ],
      [
        'unknown sortimentId is 12001',
        () => ({
          serviceUserName: term.serviceUserName,
          outletId: String(term.outletId),
          sortimentId: '999999',
          instanceName: 'x',
        }),
        12001,
      ],
      [
        'non-numeric outletId is 1000',
        () => ({ serviceUserName: term.serviceUserName, outletId: 'abc', instanceName: 'x' }),
        1000,
      ],
    ];
    for (const [name, query, errorId] of cases) {
      it(`${name} (JSON)`, async () => {
        const res = await register(query());
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ ErrorId: errorId });
      });
    }
    it('unknown serviceUserName is 10001 (XML)', async () => {
      const res = await register({ serviceUserName: 'nobody', outletId: '1', instanceName: 'x' }, 'xml');
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain('<Error><ErrorId>10001</ErrorId>');
    });
    it('missing instanceName is 10002 (XML)', async () => {
      const res = await register(
        { serviceUserName: term.serviceUserName, outletId: String(term.outletId) },
        'xml',
      );
      expect(res.body).toContain('<ErrorId>10002</ErrorId>');
    });
  });

  it('query parameter names are matched case-insensitively', async () => {
    const res = await register({
      ServiceUserName: term.serviceUserName,
      OUTLETID: String(term.outletId),
      instancename: 'Till 4',
    });
    expect(res.statusCode).toBe(200);
  });

  describe('re-assign', () => {
    it('moves the unit to another outlet of its merchant and answers 200 with an empty body', async () => {
      const o = await posCall(
        t,
        { devKey: term.devKey },
        'POST',
        `/merchants/${encodeURIComponent(term.serviceUserName)}/outlets`,
        {
          query: { brandId: String(term.brandId) },
          body: { Name: 'Second' },
        },
      );
      const outletId = (o.json() as { Id: number }).Id;
      const res = await term.pos('POST', '/trackingUnits', {
        query: { serviceUserName: term.serviceUserName, outletId: String(outletId), instanceName: 'Till 1' },
        headers: { 'content-type': 'application/json' },
      });
      expect(res.body).toBe('');
      expect(res.statusCode).toBe(200);
      const list = await t.admin(
        'GET',
        `/merchants/${encodeURIComponent(term.serviceUserName)}/trackingUnits`,
      );
      const unit = (list.json() as { data: { trackingUnitId: string; outletId: number }[] }).data.find(
        (u) => u.trackingUnitId === term.trackingUnitId,
      );
      expect(unit?.outletId).toBe(outletId);
    });
    it('to an outlet of another merchant is 10003', async () => {
      const other = await setupTerminal(t);
      const res = await term.pos('POST', '/trackingUnits', {
        query: { serviceUserName: term.serviceUserName, outletId: String(other.outletId), instanceName: 'x' },
      });
      expect(res.json()).toMatchObject({ ErrorId: 10003 });
    });
    it("to another merchant's user name answers like an unknown one (10001)", async () => {
      const other = await setupTerminal(t);
      const res = await term.pos('POST', '/trackingUnits', {
        query: {
          serviceUserName: other.serviceUserName,
          outletId: String(other.outletId),
          instanceName: 'x',
        },
      });
      expect(res.json()).toMatchObject({ ErrorId: 10001 });
    });
    it('a unit registered with another DevKey is 401 / 1002', async () => {
      const other = await setupTerminal(t);
      const res = await posCall(
        t,
        { devKey: other.devKey, trackingUnitId: term.trackingUnitId },
        'POST',
        '/trackingUnits',
        {
          query: {
            serviceUserName: term.serviceUserName,
            outletId: String(term.outletId),
            instanceName: 'x',
          },
        },
      );
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ ErrorId: 1002 });
    });
  });
});
