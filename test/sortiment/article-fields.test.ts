import { describe, expect, it } from 'vitest';
import { canonical, parseArticle } from '../../src/sortiment/article.js';

/**
 * An article's field names are matched case-insensitively (docs/decisions.md, "Field names"): the
 * exact name first, else the names lower-cased, the last that matches counting; the stored form is
 * the same whichever way they were written.
 */
describe("an article's field names", () => {
  const exact = {
    PLU: 'F-1',
    Name: [{ lang: 'de', val: 'Brezel' }],
    Prices: [{ Value: 2.5, CurrencyIso: 'EUR', Tag: { Name: [{ lang: 'de', val: 'Abend' }] } }],
    NutritionFacts: { KCal: 190, Fats: 3.5 },
    VatInPercent: 7,
  };

  it('written in any case give the same stored article', () => {
    const other = {
      plu: 'F-1',
      NAME: [{ LANG: 'de', Val: 'Brezel' }],
      prices: [{ value: 2.5, currencyIso: 'EUR', tag: { name: [{ lang: 'de', VAL: 'Abend' }] } }],
      nutritionfacts: { kcal: 190, FATS: 3.5 },
      vatinpercent: 7,
    };
    const a = parseArticle(exact, 'EUR');
    const b = parseArticle(other, 'EUR');
    if (!a.ok || !b.ok) throw new Error('both are valid articles');
    expect(canonical(b.value)).toEqual(canonical(a.value));
    expect(b.value.Prices[0]?.Tag?.Name).toEqual([{ lang: 'de', val: 'Abend' }]);
  });

  it('the exact name counts before another case; among other cases the last one', () => {
    const both = parseArticle({ ...exact, plu: 'F-2', GroupId: 'G1', groupid: 'G2' }, 'EUR');
    expect(both.ok && both.value.PLU).toBe('F-1');
    expect(both.ok && both.value.GroupId).toBe('G1');
    const last = parseArticle({ ...exact, groupid: 'G2', GROUPID: 'G3' }, 'EUR');
    expect(last.ok && last.value.GroupId).toBe('G3');
  });

  it('a field missing in every case is absent', () => {
    const a = parseArticle({ ...exact, Groupid_: 'G9' }, 'EUR');
    expect(a.ok && a.value.GroupId).toBeNull();
  });
});
