import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { discountsByPosition, parseRate, priceBasket, splitVat } from '../../src/orders/pricing.js';

describe('checkout VAT: per rate, net = round(gross * 100 / (100 + rate)), tax = gross - net', () => {
  it.each([
    { gross: 119, rate: '19', net: 100, tax: 19 },
    { gross: 107, rate: '7', net: 100, tax: 7 },
    { gross: 350, rate: '7', net: 327, tax: 23 },
    { gross: 1, rate: '19', net: 1, tax: 0 },
    { gross: 1299, rate: '7.7', net: 1206, tax: 93 },
    { gross: 500, rate: '0', net: 500, tax: 0 },
  ])('$gross at $rate %: net $net, tax $tax', ({ gross, rate, net, tax }) => {
    expect(splitVat(gross, parseRate(rate) ?? { units: 0n, scale: 0 })).toEqual({
      netMinor: net,
      taxMinor: tax,
    });
  });

  /**
   * Two rates and both consumption modes: a menu article 1001 at 3.50 (19 % on premise, 7 %
   * takeaway), 1002 at 2.20 (7 %), 1003 at 12.99 (19 %), and what each mode books.
   */
  const table = [
    {
      mode: 'OnPremise',
      lines: [
        {
          positionId: 1,
          productPlu: '1001',
          quantity: 3,
          lineGrossMinor: 1050,
          discountMinor: 0,
          rateText: '19',
        },
        {
          positionId: 2,
          productPlu: '1002',
          quantity: 1,
          lineGrossMinor: 220,
          discountMinor: 0,
          rateText: '7',
        },
        {
          positionId: 3,
          productPlu: '1003',
          quantity: 1,
          lineGrossMinor: 1299,
          discountMinor: 0,
          rateText: '19',
        },
      ],
      vats: [
        { rateText: '7', grossMinor: 220, netMinor: 206, taxMinor: 14 },
        { rateText: '19', grossMinor: 2349, netMinor: 1974, taxMinor: 375 },
      ],
    },
    {
      mode: 'Takeaway',
      lines: [
        {
          positionId: 1,
          productPlu: '1001',
          quantity: 3,
          lineGrossMinor: 1050,
          discountMinor: 0,
          rateText: '7',
        },
        {
          positionId: 2,
          productPlu: '1002',
          quantity: 1,
          lineGrossMinor: 220,
          discountMinor: 0,
          rateText: '7',
        },
        {
          positionId: 3,
          productPlu: '1003',
          quantity: 1,
          lineGrossMinor: 1299,
          discountMinor: 0,
          rateText: '19',
        },
      ],
      vats: [
        { rateText: '7', grossMinor: 1270, netMinor: 1187, taxMinor: 83 },
        { rateText: '19', grossMinor: 1299, netMinor: 1092, taxMinor: 207 },
      ],
    },
  ];

  it.each(table)(
    '$mode: `vats` sums gross per rate first, and its sums equal the positions’ sums to the cent',
    ({ lines, vats }) => {
      const priced = priceBasket(lines);
      expect(priced.vats).toEqual(vats);
      expect(priced.totalGrossMinor).toBe(2569);
      for (const v of priced.vats) {
        const of = priced.positions.filter((p) => p.vat.rateText === v.rateText);
        expect(of.reduce((a, p) => a + p.vat.grossMinor, 0)).toBe(v.grossMinor);
        expect(of.reduce((a, p) => a + p.vat.netMinor, 0)).toBe(v.netMinor);
        expect(of.reduce((a, p) => a + p.vat.taxMinor, 0)).toBe(v.taxMinor);
      }
    },
  );

  it('gross = net + tax for every rate and every split, per position and per rate', () => {
    const rate = fc.oneof(
      fc.integer({ min: 0, max: 30 }).map(String),
      fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 9 })).map(([a, b]) => `${a}.${b}`),
    );
    const line = fc.record({
      gross: fc.integer({ min: 0, max: 10_000_000 }),
      discount: fc.integer({ min: 0, max: 100 }),
      rate,
    });
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 30 }), (ls) => {
        const priced = priceBasket(
          ls.map((l, i) => ({
            positionId: i + 1,
            productPlu: `P${i}`,
            quantity: 1,
            lineGrossMinor: l.gross,
            discountMinor: Math.min(l.discount, l.gross),
            rateText: l.rate,
          })),
        );
        for (const p of priced.positions) {
          expect(p.vat.netMinor + p.vat.taxMinor).toBe(p.vat.grossMinor);
          expect(p.vat.netMinor).toBeGreaterThanOrEqual(0);
          expect(p.vat.taxMinor).toBeGreaterThanOrEqual(0);
        }
        for (const v of priced.vats) {
          expect(v.netMinor + v.taxMinor).toBe(v.grossMinor);
          const r = parseRate(v.rateText);
          if (!r) throw new Error('rate');
          expect(v).toMatchObject({ netMinor: splitVat(v.grossMinor, r).netMinor });
          const of = priced.positions.filter((p) => p.vat.rateText === v.rateText);
          expect(of.reduce((a, p) => a + p.vat.netMinor, 0)).toBe(v.netMinor);
        }
        expect(priced.vats.reduce((a, v) => a + v.grossMinor, 0)).toBe(priced.totalGrossMinor);
      }),
    );
  });

  it('a bill reward is shared over the positions by largest remainder; product rewards stay on their position', () => {
    const lines = [
      { positionId: 1, lineGrossMinor: 500 },
      { positionId: 2, lineGrossMinor: 300 },
      { positionId: 3, lineGrossMinor: 200 },
    ];
    expect(
      discountsByPosition(lines, [
        { positionId: 1, grossRewardMinor: 100 },
        { positionId: 0, grossRewardMinor: 91 },
      ]),
      // 91 over what is left (400, 300, 200): 40.44, 30.33, 20.22; the leftover cent to the largest remainder.
    ).toEqual([100 + 41, 30, 20]);
  });
});
