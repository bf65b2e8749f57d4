import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundIntegers, hasNulEscape } from '../../src/wire/request-guards.js';
import { parseXml } from '../../src/wire/xml.js';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';

/**
 * Every bad input gets a clear error from the catalog and changes nothing: values that the
 * database cannot hold (U+0000 in text, integers beyond bigint, instants beyond year 9999, a
 * balance beyond the largest exact amount) are refused at the edge, never in a query.
 */

describe('hasNulEscape', () => {
  it('finds the JSON escape of U+0000 in text and in bytes', () => {
    expect(hasNulEscape('{"a":"x\\u0000"}')).toBe(true);
    expect(hasNulEscape(Buffer.from('{"a":"\\u0000"}'))).toBe(true);
    expect(hasNulEscape('{"a":"\\\\\\u0000"}')).toBe(true);
  });

  it('does not take an escaped backslash followed by "u0000" for it', () => {
    expect(hasNulEscape('{"a":"\\\\u0000"}')).toBe(false);
    expect(hasNulEscape(Buffer.from('{"a":"\\\\u0000"}'))).toBe(false);
    expect(hasNulEscape('{"a":"u0000 \\u0001"}')).toBe(false);
  });
});

describe('XML text values', () => {
  it('numeric character references are decoded like the named XML entities', () => {
    expect(parseXml('<B><W>Caf&#233; &#xE9; &#x1F600; &amp; &lt;</W></B>').value).toEqual({
      W: 'Café é 😀 & <',
    });
  });

  it('U+0000 never reaches the service: percent-encoded it is refused, as a reference the reader drops it', () => {
    expect(() => parseXml('<B><W>a%00b</W></B>')).toThrow(/U\+0000/);
    expect(parseXml('<B><W>a&#0;b</W></B>').value).toEqual({ W: 'ab' });
  });
});

describe('boundIntegers', () => {
  it('bounds integers without bounds by the safe integers and keeps given bounds and values', () => {
    const schema = {
      type: 'object',
      properties: {
        id: { type: 'integer', minimum: 1 },
        n: { type: ['integer', 'null'] },
        unit: { type: 'integer', enum: [0, 1] },
        price: { type: 'number' },
      },
    };
    const bounded = boundIntegers(schema);
    expect(bounded.properties.id).toEqual({ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
    expect(bounded.properties.n).toEqual({
      type: ['integer', 'null'],
      minimum: -Number.MAX_SAFE_INTEGER,
      maximum: Number.MAX_SAFE_INTEGER,
    });
    expect(bounded.properties.unit.enum).toEqual([0, 1]);
    expect(bounded.properties.price).toEqual({ type: 'number' });
    expect(schema.properties.id).toEqual({ type: 'integer', minimum: 1 });
  });
});

describe.each(databases)('bad input on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
  });
  afterAll(() => t?.close());

  const basket = (extra: Record<string, unknown> = {}) => ({
    Timestamp: '2026-03-02T12:30:00+01:00',
    HasDiscounts: false,
    Positions: [{ PositionId: 1, ProductId: '1001', Unit: 0, Amount: 1, CurrentGrossPrice: 2.5 }],
    ...extra,
  });

  const countBaskets = async () =>
    Number(
      (
        await t.database.db
          .selectFrom('baskets')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('U+0000 in a JSON body is 400 / 1000 and stores nothing', async () => {
    const before = await countBaskets();
    const res = await term.pos('POST', '/baskets/NUL-1', { body: basket({ WaiterName: 'a\u0000b' }) });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ErrorId: 1000, ErrorText: expect.stringContaining('U+0000') });
    const outlet = await t.app.inject({
      method: 'POST',
      url: `/api/pos/v3/merchants/${term.serviceUserName}/outlets?brandId=${term.brandId}`,
      headers: { devkey: term.devKey, accept: 'application/json', 'content-type': 'application/json' },
      payload: '{"Name":"Main\\u0000street"}',
    });
    expect(outlet.statusCode).toBe(400);
    expect(outlet.json()).toMatchObject({ ErrorId: 1000 });
    expect(await countBaskets()).toBe(before);
  });

  it('U+0000 in the path or query is 400 / 1000', async () => {
    const inPath = await term.pos('POST', '/baskets/NUL%00ID', { body: basket() });
    expect(inPath.statusCode).toBe(400);
    expect(inPath.json()).toMatchObject({ ErrorId: 1000 });
    const inQuery = await term.pos('POST', '/baskets/NUL-2', {
      body: basket(),
      query: { consumerIdentToken: 'CARD\u0000' },
    });
    expect(inQuery.statusCode).toBe(400);
    const token = await term.pos('POST', '/tokens/C%00D');
    expect(token.statusCode).toBe(400);
    expect(token.json()).toMatchObject({ ErrorId: 1000 });
  });

  it('U+0000 in XML, percent-encoded, is 400 / 1000 (XML)', async () => {
    const res = await term.pos('POST', '/baskets/NUL-3', {
      format: 'xml',
      body:
        '<Basket><Timestamp>2026-03-02T12:30:00+01:00</Timestamp><HasDiscounts>false</HasDiscounts>' +
        '<WaiterName>a%00b</WaiterName><Positions/></Basket>',
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('<ErrorId>1000</ErrorId>');
  });

  it('XML nested deeper than the reader takes is 400 / 1000, not a failure', async () => {
    const deep = `<Basket>${'<a>'.repeat(200)}${'</a>'.repeat(200)}</Basket>`;
    const res = await term.pos('POST', '/baskets/DEEP-1', { format: 'xml', body: deep });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('<ErrorId>1000</ErrorId>');
  });

  it('U+0000 in an operator request is 400 invalid_request and creates nothing', async () => {
    const res = await t.admin('POST', '/merchants', {
      serviceUserName: 'nul\u0000merchant',
      displayName: 'x',
      currency: 'EUR',
      timeZone: 'Europe/Berlin',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: { code: 'invalid_request' } });
  });

  it('ids beyond the safe integers are 400 / 1000 in POS queries and operator paths', async () => {
    const register = await t.app.inject({
      method: 'GET',
      url: `/api/pos/v3/trackingUnits?serviceUserName=${term.serviceUserName}&outletId=99999999999999999999&instanceName=T`,
      headers: { devkey: term.devKey, accept: 'application/json' },
    });
    expect(register.statusCode).toBe(400);
    expect(register.json()).toMatchObject({ ErrorId: 1000 });
    const outlet = await t.app.inject({
      method: 'POST',
      url: `/api/pos/v3/merchants/${term.serviceUserName}/outlets?brandId=99999999999999999999`,
      headers: { devkey: term.devKey, accept: 'application/json', 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(outlet.statusCode).toBe(400);
    const campaign = await t.admin('GET', '/campaigns/99999999999999999999');
    expect(campaign.statusCode).toBe(400);
    expect(campaign.json()).toMatchObject({ error: { code: 'invalid_request' } });
    const profile = await t.admin('POST', `/merchants/${term.serviceUserName}/profiles`, {
      fullName: 'Ada',
      email: 'ada@example.org',
      balanceConfig: { maxAmount: 1e300 },
    });
    expect(profile.statusCode).toBe(400);
  });

  it("a basket in another currency than the merchant's is 400 / 1000; the same code in lower case is the merchant's", async () => {
    const other = await term.pos('POST', '/baskets/CUR-1', { body: basket({ CurrencyISO: 'USD' }) });
    expect(other.statusCode).toBe(400);
    expect(other.json()).toMatchObject({
      ErrorId: 1000,
      ErrorText: expect.stringContaining('CurrencyISO USD'),
    });
    const lower = await term.pos('POST', '/baskets/CUR-2', { body: basket({ CurrencyISO: 'eur' }) });
    expect(lower.statusCode).toBe(200);
  });

  it('a JSON body with a byte order mark is read as without it, and its grant reads it back', async () => {
    const res = await term.pos('POST', '/baskets/BOM-1', { raw: `\ufeff${JSON.stringify(basket())}` });
    expect(res.statusCode).toBe(200);
    const grant = await term.pos('POST', '/baskets/BOM-1/grant', { sign: 'BOM-1' });
    expect(grant.statusCode).toBe(200);
    expect(grant.json()).toMatchObject({ BasketId: 'BOM-1', Granted: true });
  });

  it('a scheme earning more than 1,000,000 points per rule is refused; a basket earns at most 1,000,000,000', async () => {
    const path = `/merchants/${term.serviceUserName}/loyaltySchemes`;
    const reward = { threshold: 10, type: 'bill', discount: { amount: 1 } };
    const tooMany = await t.admin('POST', path, {
      name: 'Too many',
      earn: [{ per: 'amount', amount: 0.01, points: Number.MAX_SAFE_INTEGER }],
      reward,
    });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json()).toMatchObject({
      error: { code: 'invalid_request', details: { field: 'earn[0].points' } },
    });
    const most = await t.admin('POST', path, {
      name: 'Most',
      earn: [{ per: 'amount', amount: 0.01, points: 1_000_000 }],
      reward,
    });
    expect(most.statusCode).toBe(201);
    const profile = await t.admin('POST', `/merchants/${term.serviceUserName}/profiles`, {
      fullName: 'Ada',
      email: 'ada@example.org',
    });
    const profileId = (profile.json() as { id: number }).id;
    await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: 'POINTS-CARD', tokenType: 0 });
    const big = basket({
      Positions: [{ PositionId: 1, ProductId: '1001', Unit: 0, Amount: 1000, CurrentGrossPrice: 1000 }],
    });
    const up = await term.pos('POST', '/baskets/POINTS-1', {
      body: big,
      query: { consumerIdentToken: 'POINTS-CARD' },
    });
    expect(up.statusCode).toBe(200);
    const line = (
      up.json() as { LoyaltyInfo: { Name: string; Details: { NewPoints: number }[] }[] }
    ).LoyaltyInfo.find((l) => l.Name === 'Most');
    expect(line?.Details[0]?.NewPoints).toBe(1_000_000_000 - 10);
    const grant = await term.pos('POST', '/baskets/POINTS-1/grant', { sign: 'POINTS-1' });
    expect(grant.statusCode).toBe(200);
  });

  it('a Timestamp whose instant lies beyond year 9999 in UTC is 400 / 1000', async () => {
    const res = await term.pos('POST', '/baskets/LATE-1', {
      body: basket({ Timestamp: '9999-12-31T23:59:59-14:00' }),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ErrorId: 1000, ErrorText: expect.stringContaining('Timestamp') });
  });

  it('a top-up that would pass the largest balance the wire writes exactly is refused with 13004 and books nothing', async () => {
    const card = 'GIFT-MAX';
    expect((await term.pos('POST', `/tokens/${card}`, { query: { tokentype: 'gift' } })).statusCode).toBe(
      200,
    );
    const amount = '9000000000000.00';
    const first = await term.pos('POST', `/tokens/${card}/addBalance`, {
      query: { balanceToAdd: amount },
      sign: `${card}${amount}`,
    });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ Balance: 9000000000000 });
    const second = await term.pos('POST', `/tokens/${card}/addBalance`, {
      query: { balanceToAdd: amount },
      sign: `${card}${amount}`,
    });
    expect(second.statusCode).toBe(400);
    expect(second.json()).toMatchObject({ ErrorId: 13004 });
    const small = await term.pos('POST', `/tokens/${card}/withdrawBalance`, {
      query: { balanceToWithdraw: '0.01' },
      sign: `${card}0.01`,
    });
    // Exact to the cent on the wire: 15 significant digits.
    expect(small.body).toContain('"Balance":8999999999999.99');
  });
});
