import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';

/**
 * ErrorId 1000 is "Body has syntax errors and cannot be deserialised." A request that was read
 * without fault but breaks a rule keeps ErrorId 1000, the id tills handle, but its text says what
 * is wrong instead of claiming a syntax error.
 */
const SYNTAX = 'Body has syntax errors and cannot be deserialised.';
const REFUSED = 'The request is well-formed but not accepted:';

const basket = (extra: Record<string, unknown> = {}) => ({
  Timestamp: '2026-03-02T12:30:00+01:00',
  HasDiscounts: false,
  Positions: [
    { PositionId: 1, ProductId: '1001', Unit: 0, Amount: 2, CurrentGrossPrice: 3.2 },
    { PositionId: 2, ProductId: '2002', Unit: 0, Amount: 1, CurrentGrossPrice: 1.5 },
  ],
  ...extra,
});

describe.each(databases)('semantic refusals say what is wrong, not "syntax errors", on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let sid: string;

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    const s = await term.pos('GET', '/sortiments', { query: { thirdPartySortimentIdentifier: 'ERP-T' } });
    sid = (s.json() as { serviceSortimentId: string }).serviceSortimentId;
  });
  afterAll(() => t?.close());

  it('a basket in another currency than the merchant’s (JSON)', async () => {
    const res = await term.pos('POST', '/baskets/T-1', { body: basket({ CurrencyISO: 'USD' }) });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      ErrorId: 1000,
      ErrorText: `${REFUSED} CurrencyISO USD is not the merchant's currency EUR.`,
    });
  });

  it('a basket in another currency than the merchant’s (XML)', async () => {
    const xml =
      '<Basket><Timestamp>2026-03-02T12:35:00+01:00</Timestamp><HasDiscounts>false</HasDiscounts>' +
      '<CurrencyISO>CHF</CurrencyISO><Positions><Position><PositionId>1</PositionId><ProductId>1001</ProductId>' +
      '<Unit>0</Unit><Amount>1</Amount><CurrentGrossPrice>3.20</CurrentGrossPrice></Position></Positions></Basket>';
    const res = await term.pos('POST', '/baskets/T-2', { raw: xml, format: 'xml' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('<ErrorId>1000</ErrorId>');
    expect(res.body).toContain(
      `<ErrorText>${REFUSED} CurrencyISO CHF is not the merchant&apos;s currency EUR.</ErrorText>`,
    );
    expect(res.body).not.toContain('syntax');
  });

  it('a PositionId given twice', async () => {
    const body = basket();
    body.Positions[1] = { ...body.Positions[1], PositionId: 1 } as (typeof body.Positions)[0];
    const res = await term.pos('POST', '/baskets/T-3', { body });
    expect(res.json()).toEqual({
      ErrorId: 1000,
      ErrorText: `${REFUSED} PositionId 1 occurs more than once.`,
    });
  });

  it('an Amount of zero', async () => {
    const res = await term.pos('POST', '/baskets/T-4', {
      body: basket({
        Positions: [{ PositionId: 1, ProductId: '1001', Unit: 0, Amount: 0, CurrentGrossPrice: 3.2 }],
      }),
    });
    expect(res.json()).toEqual({
      ErrorId: 1000,
      ErrorText: `${REFUSED} body/Positions/0/Amount must be > 0`,
    });
  });

  it('an article whose body PLU is not the path’s, or whose groupId and GroupId differ', async () => {
    const name = [{ lang: 'de', val: 'Kaffee' }];
    const plu = await term.pos('POST', `/sortiments/${sid}/article/A-1`, {
      body: { PLU: 'A-2', Name: name },
    });
    expect(plu.json()).toEqual({
      ErrorId: 1000,
      ErrorText: `${REFUSED} PLU of the body differs from the PLU of the path.`,
    });
    const group = await term.pos('PUT', `/sortiments/${sid}/article/A-1`, {
      query: { groupId: 'X' },
      body: { PLU: 'A-1', Name: name, GroupId: 'Y' },
    });
    expect(group.json()).toEqual({
      ErrorId: 1000,
      ErrorText: `${REFUSED} groupId of the query and GroupId of the body differ.`,
    });
  });

  it('a price with more decimals than the currency has', async () => {
    const res = await term.pos('POST', `/sortiments/${sid}/article/A-3`, {
      body: { PLU: 'A-3', Name: [{ lang: 'de', val: 'Tee' }], Prices: [{ Value: 1.234 }] },
    });
    expect(res.json()).toEqual({
      ErrorId: 1000,
      ErrorText: `${REFUSED} Prices.Value has more decimals than EUR has (2).`,
    });
  });

  it('a group whose UpGroupId would close a cycle', async () => {
    await term.pos('POST', `/sortiments/${sid}/group/G1`, { body: { Id: 'G1' } });
    await term.pos('POST', `/sortiments/${sid}/group/G2`, { body: { Id: 'G2', UpGroupId: 'G1' } });
    const res = await term.pos('PUT', `/sortiments/${sid}/group/G1`, { body: { Id: 'G1', UpGroupId: 'G2' } });
    expect(res.json()).toEqual({
      ErrorId: 1000,
      ErrorText: `${REFUSED} UpGroupId G2 lies below group G1: no cycles.`,
    });
  });

  it('a bulk upload with invalid items names the count, each item its own error', async () => {
    const res = await term.pos('POST', `/sortiments/${sid}/bulkUpload`, {
      query: { changedArticlesOnly: 'true' },
      body: {
        Groups: [],
        Articles: [{ PLU: 'B-1', Name: [{ lang: 'de', val: 'x' }], Prices: [{ Value: -1 }] }],
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      ErrorId: 1000,
      ErrorText: `${REFUSED} 1 invalid item(s); nothing was changed.`,
      Errors: [{ PLU: 'B-1', ErrorId: 1000, ErrorText: `${REFUSED} Prices.Value must not be negative.` }],
    });
  });

  it('an operator request naming an unknown currency', async () => {
    const res = await t.admin('POST', '/merchants', {
      serviceUserName: 'refusal-currency',
      displayName: 'Refusal',
      currency: 'XYZ',
      timeZone: 'Europe/Berlin',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: {
        code: 'invalid_request',
        message: `${REFUSED} Unknown currency "XYZ".`,
        requestId: expect.any(String),
      },
    });
  });

  it('a syntax error still says so', async () => {
    const res = await term.pos('POST', '/baskets/T-9', { raw: '{"Timestamp": ', format: 'json' });
    expect(res.statusCode).toBe(400);
    const body = res.json() as { ErrorId: number; ErrorText: string };
    expect(body.ErrorId).toBe(1000);
    expect(body.ErrorText.startsWith(SYNTAX)).toBe(true);
  });
});
