import { gzipSync } from 'node:zlib';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type TestApp,
  type Terminal,
  databases,
  posCall,
  securityToken,
  setupTerminal,
  startApp,
} from '../support/harness.js';

const basket = (extra: Record<string, unknown> = {}) => ({
  Timestamp: '2026-03-02T16:59:00-05:00',
  HasDiscounts: false,
  CurrencyISO: 'EUR',
  BillNumber: 'R-1',
  TotalValue: 12.4,
  Positions: [
    { PositionId: 1, ProductId: '1001', Unit: 0, Amount: 3, CurrentGrossPrice: 2.45 },
    { PositionId: 2, ProductId: '2002', Unit: 1, Amount: 0.245, RegularGrossPrice: 19.9 },
  ],
  ...extra,
});

const xmlBasket = `<?xml version="1.0" encoding="utf-8"?>
<Basket xmlns="http://schemas.datacontract.org/2004/07/Till" xmlns:i="http://www.w3.org/2001/XMLSchema-instance">
  <BillNumber>R%2F7</BillNumber>
  <ContextIdentifiers xmlns:d2p1="http://schemas.microsoft.com/2003/10/Serialization/Arrays">
    <d2p1:string>SUMMER</d2p1:string><d2p1:string>WINTER</d2p1:string>
  </ContextIdentifiers>
  <HasDiscounts>false</HasDiscounts>
  <Positions>
    <BasketPosition>
      <Amount>2</Amount><CurrentGrossPrice>2.50</CurrentGrossPrice><OrderTime i:nil="true"/>
      <PositionId>1</PositionId><ProductId>0042</ProductId>
      <ProductProps><KeyValueOfstringstring><Key>Size</Key><Value>L &amp; XL</Value></KeyValueOfstringstring></ProductProps>
      <Unit>0</Unit>
    </BasketPosition>
  </Positions>
  <Timestamp>2026-03-02T16:59:00+01:00</Timestamp>
  <WaiterName i:nil="true"/>
</Basket>`;

describe.each(databases)('baskets on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let n = 0;
  const id = () => `B-${++n}`;
  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
  });
  afterAll(() => t?.close());

  async function storedBody(basketId: string): Promise<Record<string, unknown>> {
    const row = await t.database.db
      .selectFrom('baskets')
      .select(['body', 'bill_pdf', 'revision'])
      .where('tracking_unit_id', '=', term.trackingUnitId)
      .where('basket_id', '=', basketId)
      .executeTakeFirstOrThrow();
    return { ...(row.body as Record<string, unknown>), _pdf: row.bill_pdf, _revision: row.revision };
  }

  it('upload answers Rewards and LoyaltyInfo (empty while no campaign exists)', async () => {
    const res = await term.pos('POST', `/baskets/${id()}`, { body: basket() });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ Rewards: [], LoyaltyInfo: [] });
  });

  it('every resubmission stores the whole basket anew', async () => {
    const b = id();
    await term.pos('POST', `/baskets/${b}`, { body: basket({ WaiterName: 'Anna' }) });
    await term.pos('POST', `/baskets/${b}`, {
      body: basket({ Positions: [{ PositionId: 9, Unit: 0, Amount: 1 }] }),
    });
    const stored = await storedBody(b);
    expect(stored.WaiterName).toBeUndefined();
    expect(stored.Positions).toEqual([{ PositionId: 9, Unit: 0, Amount: 1 }]);
    expect(stored._revision).toBe(2);
  });

  it('simultaneous uploads of one new basketId store one basket, the last one written, and none fails', async () => {
    const b = id();
    const waiters = Array.from({ length: 12 }, (_, i) => `Waiter ${i}`);
    const answers = await Promise.all(
      waiters.map((w) => term.pos('POST', `/baskets/${b}`, { body: basket({ WaiterName: w }) })),
    );
    expect(answers.map((r) => r.statusCode)).toEqual(waiters.map(() => 200));
    const stored = await storedBody(b);
    expect(stored._revision).toBe(waiters.length);
    expect(waiters).toContain(stored.WaiterName);
  });

  it('the bill number a basket is found by is what its stored body holds, however the till wrote it', async () => {
    const head = '"Timestamp": "2026-03-02T16:59:00+01:00", "HasDiscounts": false';
    const bills = [
      '"BillNumber":"R-1"',
      '"BillNumber": "R-2"',
      '"BillNumber":"R\\u002d3"',
      '"BillNumber":1e2',
      '"BillNumber":42',
      '"BillNumber":null',
      '"BillNumber":true',
      '"BillNumber":["R-4"]',
      '"BillNumber":"R-5","BillNumber":"R-6"',
      '"BillNumber":"R-7","Bill\\u004eumber":"R-8"',
      '"WaiterName":"\\"BillNumber\\":\\"R-9\\"","BillNumber":"R-10"',
      '"billnumber":"R-11"',
      '"WaiterName":"Anna"',
    ];
    const ids = bills.map(() => id());
    for (const [i, bill] of bills.entries()) {
      const res = await term.pos('POST', `/baskets/${ids[i]}`, { raw: `{ ${head}, ${bill} }` });
      expect(res.statusCode, bill).toBe(200);
    }
    const rows = await t.database.db
      .selectFrom('baskets')
      .select(['basket_id', 'bill_number', sql<string | null>`body->>'BillNumber'`.as('in_body')])
      .where('tracking_unit_id', '=', term.trackingUnitId)
      .where('basket_id', 'in', ids)
      .execute();
    const byId = new Map(rows.map((r) => [r.basket_id, r]));
    expect(ids.map((b) => byId.get(b)?.bill_number)).toEqual(ids.map((b) => byId.get(b)?.in_body));
    expect(ids.map((b) => byId.get(b)?.bill_number)).toEqual([
      'R-1',
      'R-2',
      'R-3',
      '1e2',
      '42',
      null,
      'true',
      '["R-4"]',
      'R-6',
      'R-8',
      'R-10',
      'R-11',
      null,
    ]);
  });

  it("a JSON basket in the documents' field names is stored exactly as the till sent it", async () => {
    const b = id();
    const raw = `{ "Timestamp": "2026-03-02T16:59:00+01:00", "HasDiscounts": false,
      "Positions": [ { "PositionId": 1, "Unit": 0, "Amount": 2.50, "CurrentGrossPrice": 1.10 } ] }`;
    expect((await term.pos('POST', `/baskets/${b}`, { raw })).statusCode).toBe(200);
    const row = await t.database.db
      .selectFrom('baskets')
      .select(sql<string>`body::text`.as('text'))
      .where('tracking_unit_id', '=', term.trackingUnitId)
      .where('basket_id', '=', b)
      .executeTakeFirstOrThrow();
    expect(row.text).toBe(raw);
  });

  it("a basket with other field spellings or unknown fields is stored in the documents' field names only", async () => {
    const b = id();
    const raw = `{"timestamp":"2026-03-02T16:59:00+01:00","HASDISCOUNTS":false,"Colour":"red",
      "positions":[{"positionid":1,"Unit":0,"Amount":2.50}]}`;
    expect((await term.pos('POST', `/baskets/${b}`, { raw })).statusCode).toBe(200);
    const stored = await storedBody(b);
    expect(stored).toEqual({
      Timestamp: '2026-03-02T16:59:00+01:00',
      HasDiscounts: false,
      Positions: [{ PositionId: 1, Unit: 0, Amount: 2.5 }],
      _pdf: null,
      _revision: 1,
    });
  });

  it('every upload re-checks the terminal: after a re-assign the basket carries the new outlet', async () => {
    const b = id();
    await term.pos('POST', `/baskets/${b}`, { body: basket() });
    const o = await posCall(
      t,
      { devKey: term.devKey },
      'POST',
      `/merchants/${encodeURIComponent(term.serviceUserName)}/outlets`,
      {
        query: { brandId: String(term.brandId) },
        body: { Name: 'Terrace' },
      },
    );
    const outletId = (o.json() as { Id: number }).Id;
    const moved = await term.pos('POST', '/trackingUnits', {
      query: { serviceUserName: term.serviceUserName, outletId: String(outletId), instanceName: 'Till 1' },
    });
    expect(moved.statusCode).toBe(200);
    await term.pos('POST', `/baskets/${b}`, { body: basket() });
    const row = await t.database.db
      .selectFrom('baskets')
      .select('outlet_id')
      .where('tracking_unit_id', '=', term.trackingUnitId)
      .where('basket_id', '=', b)
      .executeTakeFirstOrThrow();
    expect(row.outlet_id).toBe(outletId);
  });

  it('BillPdf is decoded and stored as bytes', async () => {
    const b = id();
    const pdf = Buffer.from('%PDF-1.4 bill\n%%EOF\n');
    await term.pos('POST', `/baskets/${b}`, { body: basket({ BillPdf: pdf.toString('base64') }) });
    const stored = await storedBody(b);
    expect(Buffer.from(stored._pdf as Uint8Array).toString()).toBe('%PDF-1.4 bill\n%%EOF\n');
    expect(stored.BillPdf).toBeUndefined();
  });

  it('request field names are matched case-insensitively and unknown fields are ignored', async () => {
    const b = id();
    const res = await term.pos('POST', `/baskets/${b}`, {
      body: {
        timestamp: '2026-03-02T16:59:00Z',
        hasdiscounts: false,
        SomethingNew: 1,
        positions: [{ positionid: 1, UNIT: 0, amount: 1, currentgrossprice: 1 }],
      },
    });
    expect(res.statusCode).toBe(200);
    const stored = await storedBody(b);
    expect(stored.Positions).toEqual([{ PositionId: 1, Unit: 0, Amount: 1, CurrentGrossPrice: 1 }]);
    expect(stored.SomethingNew).toBeUndefined();
  });

  it('XML in the DataContract style: namespaces, i:nil, any position element name, string arrays, dictionaries, percent-decoding', async () => {
    const b = id();
    const res = await term.pos('POST', `/baskets/${b}`, { body: xmlBasket, format: 'xml' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/xml/);
    expect(res.body).toBe(
      '<?xml version="1.0" encoding="utf-8"?><BasketResponse><Rewards></Rewards><LoyaltyInfo></LoyaltyInfo></BasketResponse>',
    );
    const stored = await storedBody(b);
    expect(stored.BillNumber).toBe('R/7');
    expect(stored.ContextIdentifiers).toEqual(['SUMMER', 'WINTER']);
    expect(stored.Positions).toEqual([
      {
        Amount: 2,
        CurrentGrossPrice: 2.5,
        PositionId: 1,
        ProductId: '0042',
        ProductProps: { Size: 'L & XL' },
        Unit: 0,
      },
    ]);
  });

  it('the response follows Accept over Content-Type', async () => {
    const res = await term.pos('POST', `/baskets/${id()}`, {
      body: basket(),
      headers: { accept: 'application/xml' },
    });
    expect(res.body).toMatch(/^<\?xml/);
    const res2 = await term.pos('POST', `/baskets/${id()}`, {
      body: xmlBasket,
      format: 'xml',
      headers: { accept: 'application/json' },
    });
    expect(res2.json()).toEqual({ Rewards: [], LoyaltyInfo: [] });
    const res3 = await term.pos('POST', `/baskets/${id()}`, {
      body: xmlBasket,
      format: 'xml',
      headers: { accept: '*/*' },
    });
    expect(res3.body).toMatch(/^<\?xml/);
  });

  it('a gzip-compressed body is accepted and a gzip response is sent when asked', async () => {
    const res = await term.pos('POST', `/baskets/${id()}`, {
      body: basket(),
      gzip: true,
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(res.statusCode).toBe(200);
  });

  it('a gzip bomb gets 413 / 1008 (the limit counts decompressed bytes) and the server stays up', async () => {
    const bomb = gzipSync(Buffer.alloc(t.config.bodyLimitBytes + 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(100_000);
    const res = await term.pos('POST', `/baskets/${id()}`, {
      raw: bomb,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ ErrorId: 1008 });
    const after = await term.pos('POST', `/baskets/${id()}`, { body: basket() });
    expect(after.statusCode).toBe(200);
  });

  it('a corrupt gzip body is 400 / 1000', async () => {
    const res = await term.pos('POST', `/baskets/${id()}`, {
      raw: Buffer.from('not gzip at all'),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ErrorId: 1000 });
  });

  it('an unknown Content-Encoding is 415 / 1009', async () => {
    const res = await term.pos('POST', `/baskets/${id()}`, {
      raw: JSON.stringify(basket()),
      headers: { 'content-type': 'application/json', 'content-encoding': 'compress' },
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ ErrorId: 1009 });
  });

  it('an unsupported Content-Type is 415 / 1007', async () => {
    const res = await term.pos('POST', `/baskets/${id()}`, {
      raw: 'Timestamp=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ ErrorId: 1007 });
  });

  describe('validation answers 400 / 1000 and stores nothing', () => {
    const cases: [string, unknown][] = [
      ['Timestamp is required', { HasDiscounts: false }],
      ['HasDiscounts is required', { Timestamp: '2026-03-02T16:59:00Z' }],
      ['Timestamp must be ISO 8601', basket({ Timestamp: 'yesterday' })],
      ['Timestamp must be a real date', basket({ Timestamp: '2026-02-30T10:00:00Z' })],
      [
        'PositionIds are unique',
        basket({
          Positions: [
            { PositionId: 1, Unit: 0, Amount: 1 },
            { PositionId: 1, Unit: 0, Amount: 2 },
          ],
        }),
      ],
      ['Unit is 0 or 1', basket({ Positions: [{ PositionId: 1, Unit: 2, Amount: 1 }] })],
      ['Unit is required', basket({ Positions: [{ PositionId: 1, Amount: 1 }] })],
      ['PositionId is required', basket({ Positions: [{ Unit: 0, Amount: 1 }] })],
      ['Amount is required', basket({ Positions: [{ PositionId: 1, Unit: 0 }] })],
      ['Amount is not null', basket({ Positions: [{ PositionId: 1, Unit: 0, Amount: null }] })],
      ['Amount is greater than zero', basket({ Positions: [{ PositionId: 1, Unit: 0, Amount: 0 }] })],
      [
        'prices are not negative',
        basket({ Positions: [{ PositionId: 1, Unit: 0, Amount: 1, CurrentGrossPrice: -1 }] }),
      ],
      [
        'OrderTime must be ISO 8601',
        basket({ Positions: [{ PositionId: 1, Unit: 0, Amount: 1, OrderTime: 'noon' }] }),
      ],
      ['BillPdf must be base64', basket({ BillPdf: '***' })],
      ['CurrencyISO has three letters', basket({ CurrencyISO: 'EURO' })],
      ['Positions is an array', basket({ Positions: 'many' })],
    ];
    for (const [rule, body] of cases) {
      it(rule, async () => {
        const b = id();
        const res = await term.pos('POST', `/baskets/${b}`, { body });
        expect(res.statusCode).toBe(400);
        const json = res.json() as { ErrorId: number; ErrorText: string };
        expect(json.ErrorId).toBe(1000);
        expect(json.ErrorText.length).toBeGreaterThan(20);
        const rows = await t.database.db
          .selectFrom('baskets')
          .select('basket_id')
          .where('basket_id', '=', b)
          .execute();
        expect(rows).toEqual([]);
      });
    }
    it('malformed JSON', async () => {
      const res = await term.pos('POST', `/baskets/${id()}`, {
        raw: '{"Timestamp": ',
        headers: { 'content-type': 'application/json' },
      });
      expect(res.json()).toMatchObject({ ErrorId: 1000 });
    });
    it('malformed XML (XML)', async () => {
      const res = await term.pos('POST', `/baskets/${id()}`, { raw: '<Basket><Timestamp>', format: 'xml' });
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain('<ErrorId>1000</ErrorId>');
    });
    it('a DOCTYPE is refused (XML)', async () => {
      const res = await term.pos('POST', `/baskets/${id()}`, {
        raw: '<?xml version="1.0"?><!DOCTYPE b [<!ENTITY x SYSTEM "file:///etc/passwd">]><Basket><Timestamp>&x;</Timestamp></Basket>',
        format: 'xml',
      });
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain('<ErrorId>1000</ErrorId>');
      expect(res.body).not.toContain('root:');
    });
    it('a missing required field (XML)', async () => {
      const res = await term.pos('POST', `/baskets/${id()}`, {
        raw: '<Basket><HasDiscounts>false</HasDiscounts></Basket>',
        format: 'xml',
      });
      expect(res.body).toContain('<ErrorId>1000</ErrorId>');
      expect(res.body).toContain('Timestamp');
    });
  });

  describe('authentication', () => {
    it('an inactive unit gets 403 / 1004 on upload and grant', async () => {
      const inactive = await setupTerminal(t, { activate: false });
      const up = await inactive.pos('POST', '/baskets/X', { body: basket() });
      expect(up.statusCode).toBe(403);
      expect(up.json()).toMatchObject({ ErrorId: 1004 });
      const grant = await inactive.pos('POST', '/baskets/X/grant', { sign: 'X' });
      expect(grant.statusCode).toBe(403);
    });
    it('an inactive unit gets 403 in XML too', async () => {
      const inactive = await setupTerminal(t, { activate: false });
      const up = await inactive.pos('POST', '/baskets/X', { body: xmlBasket, format: 'xml' });
      expect(up.statusCode).toBe(403);
      expect(up.body).toContain('<ErrorId>1004</ErrorId>');
    });
    it('a missing trackingUnitId is 401 / 1002', async () => {
      const res = await posCall(t, { devKey: term.devKey }, 'POST', '/baskets/X', { body: basket() });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ ErrorId: 1002 });
    });
    it('an unknown trackingUnitId is 401 / 1002', async () => {
      const res = await posCall(t, { devKey: term.devKey, trackingUnitId: 'nope' }, 'POST', '/baskets/X', {
        body: basket(),
      });
      expect(res.json()).toMatchObject({ ErrorId: 1002 });
    });
    it('a missing DevKey is 401 / 1001', async () => {
      const res = await posCall(t, { trackingUnitId: term.trackingUnitId }, 'POST', '/baskets/X', {
        body: basket(),
      });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ ErrorId: 1001 });
    });
    it('another DevKey cannot use a unit registered with the first (401 / 1002)', async () => {
      const other = await setupTerminal(t);
      const res = await posCall(
        t,
        { devKey: other.devKey, trackingUnitId: term.trackingUnitId },
        'POST',
        '/baskets/X',
        {
          body: basket(),
        },
      );
      expect(res.json()).toMatchObject({ ErrorId: 1002 });
    });
  });

  describe('grant', () => {
    it('grants with the SecurityToken over basketId and answers the booked rewards', async () => {
      const b = id();
      await term.pos('POST', `/baskets/${b}`, { body: basket() });
      const res = await term.pos('POST', `/baskets/${b}/grant`, {
        sign: b,
        query: { redeemedInPos: 'true' },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ BasketId: b, Granted: true, Rewards: [], LoyaltyInfo: [] });
    });
    it('is accepted with Content-Type and no body, and without Content-Type', async () => {
      const b = id();
      await term.pos('POST', `/baskets/${b}`, { body: basket() });
      const withType = await term.pos('POST', `/baskets/${b}/grant`, {
        sign: b,
        format: 'xml',
        headers: { 'content-type': 'application/json' },
      });
      expect(withType.statusCode).toBe(200);
      expect(withType.body).toBe(
        `<?xml version="1.0" encoding="utf-8"?><GrantResponse><BasketId>${b}</BasketId><Granted>true</Granted>` +
          '<Rewards></Rewards><LoyaltyInfo></LoyaltyInfo></GrantResponse>',
      );
      const b2 = id();
      await term.pos('POST', `/baskets/${b2}`, { body: basket() });
      const bare = await t.app.inject({
        method: 'POST',
        url: `/api/pos/v3/baskets/${b2}/grant`,
        headers: {
          devkey: term.devKey,
          trackingunitid: term.trackingUnitId,
          securitytoken: securityToken(b2, term.checksumSecret),
        },
      });
      expect(bare.statusCode).toBe(200);
      expect(bare.body).toContain('<GrantResponse>');
    });
    it('a second grant answers 200 with the same body and books nothing', async () => {
      const b = id();
      await term.pos('POST', `/baskets/${b}`, { body: basket() });
      const first = await term.pos('POST', `/baskets/${b}/grant`, { sign: b });
      const second = await term.pos('POST', `/baskets/${b}/grant`, {
        sign: b,
        query: { redeemedInPos: 'false' },
      });
      expect(second.statusCode).toBe(200);
      expect(second.body).toBe(first.body);
      const row = await t.database.db
        .selectFrom('baskets')
        .select('redeemed_in_pos')
        .where('basket_id', '=', b)
        .executeTakeFirstOrThrow();
      expect(row.redeemed_in_pos).toBe(true);
    });
    it('a second grant answers the very XML of the first, with the rewards it booked', async () => {
      const u = encodeURIComponent(term.serviceUserName);
      const campaign = await t.admin('POST', `/merchants/${u}/campaigns`, {
        name: 'Ten percent on 1001',
        type: 'product',
        discount: { percent: 10 },
        products: [{ plu: '1001' }],
      });
      expect(campaign.statusCode, campaign.body).toBe(201);
      const b = id();
      await term.pos('POST', `/baskets/${b}`, { body: basket() });
      const first = await term.pos('POST', `/baskets/${b}/grant`, { sign: b, format: 'xml' });
      expect(first.statusCode, first.body).toBe(200);
      expect(first.body).toContain('<Reward>');
      const second = await term.pos('POST', `/baskets/${b}/grant`, { sign: b, format: 'xml' });
      expect(second.body).toBe(first.body);
      // The other tests of this terminal see no campaign.
      const ended = await t.admin('DELETE', `/campaigns/${(campaign.json() as { id: number }).id}`);
      expect(ended.statusCode, ended.body).toBe(200);
    });
    it('an upload after the grant is 400 / 11010 and changes nothing', async () => {
      const b = id();
      await term.pos('POST', `/baskets/${b}`, { body: basket() });
      await term.pos('POST', `/baskets/${b}/grant`, { sign: b });
      const res = await term.pos('POST', `/baskets/${b}`, { body: basket({ WaiterName: 'late' }) });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ ErrorId: 11010 });
      expect((await storedBody(b)).WaiterName).toBeUndefined();
      const xml = await term.pos('POST', `/baskets/${b}`, { body: xmlBasket, format: 'xml' });
      expect(xml.body).toContain('<ErrorId>11010</ErrorId>');
    });
    it('an unknown basket is 404 / 11011', async () => {
      const res = await term.pos('POST', '/baskets/never-uploaded/grant', { sign: 'never-uploaded' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ ErrorId: 11011 });
      const xml = await term.pos('POST', '/baskets/never-uploaded/grant', {
        sign: 'never-uploaded',
        format: 'xml',
      });
      expect(xml.body).toContain('<ErrorId>11011</ErrorId>');
    });
    it("another terminal's basket answers like an unknown one (11011)", async () => {
      const b = id();
      await term.pos('POST', `/baskets/${b}`, { body: basket() });
      const other = await setupTerminal(t);
      const res = await other.pos('POST', `/baskets/${b}/grant`, { sign: b });
      expect(res.json()).toMatchObject({ ErrorId: 11011 });
    });
    it('a wrong or missing SecurityToken is 401 / 1003 and grants nothing', async () => {
      const b = id();
      await term.pos('POST', `/baskets/${b}`, { body: basket() });
      const wrong = await term.pos('POST', `/baskets/${b}/grant`, { sign: `${b}x` });
      expect(wrong.statusCode).toBe(401);
      expect(wrong.json()).toMatchObject({ ErrorId: 1003 });
      const missing = await term.pos('POST', `/baskets/${b}/grant`);
      expect(missing.json()).toMatchObject({ ErrorId: 1003 });
      const upper = await term.pos('POST', `/baskets/${b}/grant`, {
        headers: {
          securitytoken: (await import('../support/harness.js'))
            .securityToken(b, term.checksumSecret)
            .toUpperCase(),
        },
      });
      expect(upper.statusCode).toBe(200);
    });
  });
});
