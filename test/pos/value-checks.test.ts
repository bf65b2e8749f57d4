import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasLoneSurrogateEscape } from '../../src/wire/request-guards.js';
import { parseXml } from '../../src/wire/xml.js';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';

/**
 * Values are checked before use: a number written as anything but a decimal ("0x10", "Infinity",
 * "1e400") and text with an unpaired UTF-16 surrogate are 400 / 1000, never read as something
 * else and never a database failure.
 */

const basket = (positions: unknown[]) => ({
  Timestamp: '2026-03-02T16:59:00+01:00',
  HasDiscounts: false,
  CurrencyISO: 'EUR',
  TotalValue: 2.45,
  Positions: positions,
});

describe('unpaired surrogates', () => {
  it('are found as JSON escapes, alone or out of order; pairs and escaped backslashes are not', () => {
    expect(hasLoneSurrogateEscape('{"a":"\\ud800"}')).toBe(true);
    expect(hasLoneSurrogateEscape('{"a":"x\\udc00y"}')).toBe(true);
    expect(hasLoneSurrogateEscape('{"a":"\\ud800x\\udc00"}')).toBe(true);
    expect(hasLoneSurrogateEscape(Buffer.from('{"a":"\\uD83D"}'))).toBe(true);
    expect(hasLoneSurrogateEscape('{"a":"\\ud83d\\ude00"}')).toBe(false);
    expect(hasLoneSurrogateEscape('{"a":"\\\\ud800"}')).toBe(false);
    expect(hasLoneSurrogateEscape('{"a":"\\u00e9 😀"}')).toBe(false);
  });

  it('XML cannot carry one: the reader drops a character reference to a surrogate', () => {
    expect(parseXml('<B><W>a&#xD800;b</W><V>&#56320;</V></B>').value).toEqual({ W: 'ab', V: '' });
    expect(parseXml('<B><W>&#x1F600;</W></B>').value).toEqual({ W: '😀' });
  });
});

describe.each(databases)('values checked before use (%s)', (kind) => {
  let t: TestApp;
  let term: Terminal;

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('outletId=1e400, Infinity, 0x10 or " 16 " in a query is 400 / 1000, not read as a number', async () => {
    for (const outletId of ['1e400', 'Infinity', '-Infinity', 'NaN', '0x10', ' 16 ', '1e3']) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/pos/v3/trackingUnits?serviceUserName=${term.serviceUserName}&outletId=${encodeURIComponent(outletId)}&instanceName=T`,
        headers: { devkey: term.devKey, accept: 'application/json' },
      });
      expect(`${outletId}: ${res.statusCode}`).toBe(`${outletId}: 400`);
      expect(res.json()).toMatchObject({ ErrorId: 1000 });
    }
  });

  it('a string amount "0x10" in a JSON basket is 400 / 1000, not 16; "2.45" is still 2.45', async () => {
    const hex = await term.pos('POST', '/baskets/v-1', {
      body: basket([{ PositionId: 1, ProductId: 'p', Unit: 0, Amount: '0x10', CurrentGrossPrice: 2.45 }]),
    });
    expect(hex.statusCode).toBe(400);
    expect(hex.json()).toMatchObject({ ErrorId: 1000 });
    const decimal = await term.pos('POST', '/baskets/v-2', {
      body: basket([{ PositionId: 1, ProductId: 'p', Unit: 0, Amount: '1', CurrentGrossPrice: '2.45' }]),
    });
    expect(decimal.statusCode).toBe(200);
  });

  it('an unpaired surrogate in a JSON basket is 400 / 1000 and stores nothing', async () => {
    const res = await term.pos('POST', '/baskets/v-3', {
      raw: JSON.stringify(basket([{ PositionId: 1, ProductId: 'p', Unit: 0, Amount: 1 }])).replace(
        '"p"',
        '"\\ud800"',
      ),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ErrorId: 1000 });
    const stored = await t.database.db
      .selectFrom('baskets')
      .select('basket_id')
      .where('basket_id', '=', 'v-3')
      .execute();
    expect(stored).toEqual([]);
  });

  it('an unpaired surrogate in a group name (stored as JSON) is 400 / 1000; bytes in a query that are not UTF-8 stay as sent', async () => {
    const sid = (
      (await term.pos('GET', '/sortiments', { query: { thirdPartySortimentIdentifier: 'v' } })).json() as {
        serviceSortimentId: string;
      }
    ).serviceSortimentId;
    const res = await term.pos('POST', `/sortiments/${sid}/group/g1`, {
      raw: '{"Id":"g1","Name":[{"lang":"de","val":"x\\udc00"}]}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ErrorId: 1000 });
    // In a URL an unpaired surrogate can only come as bytes that are not UTF-8: kept as sent.
    const query = await t.app.inject({
      method: 'GET',
      url: `/api/pos/v3/sortiments?thirdPartySortimentIdentifier=v%ED%A0%80`,
      headers: { devkey: term.devKey, trackingunitid: term.trackingUnitId, accept: 'application/json' },
    });
    expect(query.statusCode).toBe(200);
    expect(query.json()).toMatchObject({ thirdPartySortimentIdentifier: 'v%ED%A0%80' });
  });
});
