import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';

const ACME = {
  legalName: 'Café Müller GmbH',
  address: 'Hauptstraße 1\n10115 Berlin',
  taxNumber: 'DE123456789',
};

describe.each(databases)("the operator sets what a merchant's receipts say of it, on %s", (kind) => {
  let t: TestApp;
  let term: Terminal;
  let url: string;
  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    url = `/merchants/${encodeURIComponent(term.serviceUserName)}/receiptDetails`;
  });
  afterAll(async () => {
    await t.close();
  });

  it('a new merchant has none set; PUT sets legal name, address and VAT id, GET reads them back', async () => {
    const before = await t.admin('GET', url);
    expect(before.statusCode, before.body).toBe(200);
    expect(before.json()).toEqual({ legalName: null, address: null, taxNumber: null });
    const put = await t.admin('PUT', url, ACME);
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toEqual(ACME);
    expect((await t.admin('GET', url)).json()).toEqual(ACME);
  });

  it('a field left out (or null) is not set afterwards; spaces around values and empty address lines are dropped', async () => {
    await t.admin('PUT', url, ACME);
    const put = await t.admin('PUT', url, {
      legalName: '  Café Müller GmbH ',
      address: ' Hauptstraße 1 \n\n 10115 Berlin ',
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toEqual({
      legalName: 'Café Müller GmbH',
      address: 'Hauptstraße 1\n10115 Berlin',
      taxNumber: null,
    });
    // null is not set, as everywhere in the operator API.
    const cleared = await t.admin('PUT', url, { ...ACME, taxNumber: null });
    expect(cleared.json()).toEqual({ ...ACME, taxNumber: null });
    const none = await t.admin('PUT', url, {});
    expect(none.json()).toEqual({ legalName: null, address: null, taxNumber: null });
  });

  it('"every bad input gets a clear error and changes nothing": blank, control characters, a malformed VAT id, too many address lines', async () => {
    await t.admin('PUT', url, ACME);
    const bad: [Record<string, unknown>, string][] = [
      [{ legalName: '' }, 'legalName'],
      [{ legalName: '   ' }, 'legalName'],
      [{ legalName: 'ACME\u0007GmbH' }, 'legalName'],
      [{ legalName: 'x'.repeat(201) }, 'legalName'],
      [{ address: 'Hauptstraße 1\t10115 Berlin' }, 'address'],
      [{ address: 'a\nb\nc\nd\ne\nf\ng' }, 'address'],
      [{ taxNumber: 'DE 123/456' }, 'taxNumber'],
      [{ taxNumber: 'DE 1' }, 'taxNumber'],
      [{ taxNumber: 'DE\t123456789' }, 'taxNumber'],
      [{ taxNumber: 'DÉ123456789' }, 'taxNumber'],
      [{ taxNumber: '123456789' }, 'taxNumber'],
      [{ taxNumber: 'DE1234567890123' }, 'taxNumber'],
      [{ taxNumber: 12345 }, 'taxNumber'],
    ];
    for (const [body, field] of bad) {
      const res = await t.admin('PUT', url, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      const error = (res.json() as { error: { code: string; message: string; details?: { field?: string } } })
        .error;
      expect(error.code, JSON.stringify(body)).toBe('invalid_request');
      expect(`${error.message} ${JSON.stringify(error.details ?? {})}`, JSON.stringify(body)).toContain(
        field,
      );
    }
    expect((await t.admin('GET', url)).json()).toEqual(ACME);
  });

  it('the VAT id as printed: spaces, dots and hyphens between its characters are dropped, letters made capitals', async () => {
    const cases: [string, string][] = [
      ['DE 123 456 789', 'DE123456789'],
      ['de123456789', 'DE123456789'],
      ['atu 12345678', 'ATU12345678'],
      ['BE 0123.456.789', 'BE0123456789'],
      ['NL-1234.56.789-B01', 'NL123456789B01'],
    ];
    for (const [typed, stored] of cases) {
      const put = await t.admin('PUT', url, { ...ACME, taxNumber: typed });
      expect(put.statusCode, `${typed}: ${put.body}`).toBe(200);
      expect(put.json(), typed).toEqual({ ...ACME, taxNumber: stored });
      expect((await t.admin('GET', url)).json(), typed).toEqual({ ...ACME, taxNumber: stored });
    }
  });

  it('an unknown merchant is 404 not_found, for reading and for setting', async () => {
    for (const res of [
      await t.admin('GET', '/merchants/no-such-merchant/receiptDetails'),
      await t.admin('PUT', '/merchants/no-such-merchant/receiptDetails', ACME),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        error: { code: 'not_found', message: expect.any(String), requestId: expect.any(String) },
      });
    }
  });
});
