import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { RuleSetCache, type RuleSet, buildRuleSet } from '../../src/campaigns/live-rules.store.js';
import type { MenuSource } from '../../src/orders/menu-cache.js';
import { type PricingRequest, priceOrder } from '../../src/orders/order-pricing.js';
import { AppError } from '../../src/shared/errors.js';
import type { StoredArticle } from '../../src/sortiment/article.js';
import type { DB } from '../../src/store/schema.js';

/** A merchant without campaigns: pricing is the menu's prices and VAT rates alone. */
class NoCampaigns extends RuleSetCache {
  override get(): Promise<RuleSet> {
    return Promise.resolve(buildRuleSet({ rulesVersion: 1, campaigns: [], schemes: [] }));
  }
}

function article(plu: string, priceMinor: number, vat: string, name: string): StoredArticle {
  return {
    PLU: plu,
    GroupId: null,
    Name: [{ lang: 'de', val: name }],
    ExternalName: [],
    Description: [],
    Ingredients: [],
    Rateable: null,
    SoldOut: null,
    PictureUrl: null,
    Prices: [{ ValueMinor: priceMinor, CurrencyIso: 'EUR', Tag: null }],
    Allergens: [],
    Traces: [],
    Additives: [],
    Tags: [],
    WeightInGramms: null,
    NutritionFacts: null,
    VatInPercent: vat,
    TakeawayVatInPercent: '7',
  };
}

const db = null as unknown as Kysely<DB>;
const deps = { db, ruleSets: new NoCampaigns(db) };

function menuOf(articles: StoredArticle[]): MenuSource {
  const byPlu = new Map(articles.map((a) => [a.PLU, a]));
  return {
    articles: async () => ({ articles: byPlu, rulesVersion: 1 }),
    groups: async () => new Map(),
  };
}

function request(positions: [string, number][]): PricingRequest {
  return {
    merchantId: 1,
    currency: 'EUR',
    menuId: 1,
    consumptionMode: 0,
    orderTime: { utcMs: 0, offsetMinutes: 0 },
    consumerKnown: true,
    customer: null,
    timeZone: 'UTC',
    nowMs: 0,
    positions: positions.map(([productPlu, quantity], i) => ({ positionId: i + 1, productPlu, quantity })),
  };
}

describe('checkout pricing of an order from its menu', () => {
  const many = Array.from({ length: 40 }, (_, i) =>
    article(`A${i}`, 100 + i, i % 2 ? '19' : '7.7', `Article ${i}`),
  );

  it('a line is its unit price times its quantity, whole or with up to three decimals, rounded half away from zero once', async () => {
    const menu = menuOf([article('1', 333, '19', 'a'), article('2', 199, '7', 'b')]);
    const { priced } = await priceOrder(
      deps,
      request([
        ['1', 3],
        ['2', 0.5],
      ]),
      menu,
    );
    expect(priced.positions.map((p) => p.lineGrossMinor)).toEqual([999, 100]);
    await expect(priceOrder(deps, request([['1', 0.0005]]), menu)).rejects.toBeInstanceOf(AppError);
  });

  it('a PLU ordered twice is refused at its second position, among a few positions and among many', async () => {
    const few = await priceOrder(
      deps,
      request([
        ['A1', 1],
        ['A2', 1],
        ['A1', 2],
      ]),
      menuOf(many),
    ).catch((e) => e);
    expect(few).toBeInstanceOf(AppError);
    expect(few).toMatchObject({
      entry: { code: 'duplicate_plu' },
      details: { positionId: 3, productPlu: 'A1' },
    });
    const list: [string, number][] = many.map((a) => [a.PLU, 1]);
    list.splice(30, 0, ['A17', 1]);
    const long = await priceOrder(deps, request(list), menuOf(many)).catch((e) => e);
    expect(long).toMatchObject({
      entry: { code: 'duplicate_plu' },
      details: { positionId: 31, productPlu: 'A17' },
    });
    const all = await priceOrder(deps, request(many.map((a) => [a.PLU, 1])), menuOf(many));
    expect(all.priced.positions).toHaveLength(40);
  });

  it("names every position's article by its PLU, a PLU that is an object's own key name included", async () => {
    const menu = menuOf([
      article('__proto__', 100, '19', 'Prototype'),
      article('12', 100, '19', 'Twelve'),
      article('x', 5, '7', 'X'),
    ]);
    const { priced } = await priceOrder(
      deps,
      request([
        ['x', 1],
        ['__proto__', 1],
        ['12', 1],
      ]),
      menu,
    );
    expect(Object.getPrototypeOf(priced.descriptions)).toBe(Object.prototype);
    expect(Object.getOwnPropertyNames(priced.descriptions).sort()).toEqual(['12', '__proto__', 'x']);
    expect(priced.descriptions['__proto__']).toBe('Prototype');
    expect(JSON.stringify(priced.descriptions)).toBe('{"12":"Twelve","x":"X","__proto__":"Prototype"}');
    const { priced: plain } = await priceOrder(
      deps,
      request([
        ['x', 1],
        ['12', 1],
      ]),
      menu,
    );
    expect(JSON.stringify(plain.descriptions)).toBe('{"12":"Twelve","x":"X"}');
  });
});
