import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, databases, startApp } from '../support/harness.js';
import { type CheckoutClient, orderBody, setupCheckout } from './checkout-support.js';

/**
 * The dry run on the channel checkout evaluates a basket as an online order is priced
 * (docs/decisions.md, "The dry run on the channel checkout"): campaigns only, without loyalty
 * schemes and the customer's points, with the customer's uses of campaigns with a usage limit
 * and their tiers, so its rewards are the order's.
 */
describe.each(databases)('the dry run on the channel checkout on %s', (kind) => {
  let t: TestApp;
  let m: CheckoutClient;
  let u: string;
  let tenOff = 0;
  let oncePerCustomer = 0;
  let card = '';
  let schemeId = 0;

  beforeAll(async () => {
    t = await startApp(kind);
    m = await setupCheckout(t);
    u = encodeURIComponent(m.serviceUserName);
    const scheme = await t.admin('POST', `/merchants/${u}/loyaltySchemes`, {
      name: 'Stamps',
      earn: [{ per: 'amount', amount: 1, points: 1 }],
    });
    expect(scheme.statusCode, scheme.body).toBe(201);
    schemeId = (scheme.json() as { id: number }).id;
    const create = async (body: object) => {
      const res = await t.admin('POST', `/merchants/${u}/campaigns`, body);
      expect(res.statusCode, res.body).toBe(201);
      return (res.json() as { id: number }).id;
    };
    tenOff = await create({
      name: 'Ten off 1001',
      type: 'product',
      discount: { percent: 10 },
      products: [{ plu: '1001' }],
    });
    oncePerCustomer = await create({
      name: 'Two off 1003, once per customer',
      type: 'product',
      discount: { amount: 2 },
      products: [{ plu: '1003' }],
      usageLimitPerConsumer: 1,
    });
    card = (await m.profile({ balance: 10_000 })).card;
  });
  afterAll(() => t?.close());

  const basket = {
    Timestamp: '2026-03-02T12:00:00+01:00',
    HasDiscounts: false,
    CurrencyISO: 'EUR',
    Positions: [
      { PositionId: 1, ProductId: '1001', Unit: 0, Amount: 1, CurrentGrossPrice: 3.5 },
      { PositionId: 2, ProductId: '1003', Unit: 0, Amount: 1, CurrentGrossPrice: 12.99 },
    ],
  };
  const dry = (body: object) => t.admin('POST', `/merchants/${u}/dryRun`, { basket, ...body });
  const reasons = (answer: { explanations: { campaignId: number; reasonCode: string }[] }) =>
    Object.fromEntries(answer.explanations.map((e) => [e.campaignId, e.reasonCode]));

  it("campaigns only, no points earned, the customer's usage limit as the order reads it, and the order is given the dry run's rewards", async () => {
    const pos = await dry({ consumerIdentToken: card });
    expect(pos.statusCode, pos.body).toBe(200);
    expect(pos.json().LoyaltyInfo).not.toEqual([]);
    expect(reasons(pos.json())).toEqual({ [tenOff]: 'applied', [oncePerCustomer]: 'applied' });

    const checkout = await dry({ consumerIdentToken: card, channel: 'checkout' });
    expect(checkout.statusCode, checkout.body).toBe(200);
    expect(checkout.json().LoyaltyInfo).toEqual([]);
    expect(reasons(checkout.json())).toEqual({ [tenOff]: 'applied', [oncePerCustomer]: 'applied' });
    const rewards = checkout.json().Rewards as { CouponId: number; GrossRewardValue: number }[];
    expect(rewards).toEqual([
      expect.objectContaining({ CouponId: tenOff, GrossRewardValue: 0.35 }),
      expect.objectContaining({ CouponId: oncePerCustomer, GrossRewardValue: 2 }),
    ]);
    // Without a customer the usage limit cannot be counted, as for an order without a profile.
    const anonymous = await dry({ channel: 'checkout' });
    expect(reasons(anonymous.json())).toEqual({
      [tenOff]: 'applied',
      [oncePerCustomer]: 'usage_limit_needs_consumer',
    });

    // The order of the same articles is priced so: 3.50 - 0.35 and 12.99 - 2.00.
    const lines: [string, number][] = [
      ['1001', 1],
      ['1003', 1],
    ];
    const order = await m.order(orderBody(m, card, lines, { totalGross: 315 + 1099 }));
    expect(order.statusCode, order.body).toBe(200);
    expect(order.json().positions.map((p: { price: number }) => p.price)).toEqual([315, 1099]);

    // Used once by the order: neither channel gives it this customer again, and the next order is
    // priced without it.
    const after = await dry({ consumerIdentToken: card, channel: 'checkout' });
    expect(reasons(after.json())).toEqual({ [tenOff]: 'applied', [oncePerCustomer]: 'usage_limit_reached' });
    expect(reasons((await dry({ consumerIdentToken: card })).json())[oncePerCustomer]).toBe(
      'usage_limit_reached',
    );
    const next = await m.order(orderBody(m, card, lines, { totalGross: 315 + 1299 }));
    expect(next.statusCode, next.body).toBe(200);
  });

  it("a stand-in for the customer's points or a draft scheme is refused with 400, as an order reads neither; a stand-in for the uses is read", async () => {
    const points = await dry({ channel: 'checkout', consumer: { points: { [schemeId]: 100 } } });
    expect(points.statusCode, points.body).toBe(400);
    expect(points.json().error).toMatchObject({
      code: 'invalid_request',
      details: { field: 'consumer.points' },
    });
    expect(points.json().error.message).toContain('consumer.points does nothing on the channel checkout');
    const schemes = await dry({
      channel: 'checkout',
      schemes: [{ name: 'Draft stamps', earn: [{ per: 'amount', amount: 1, points: 2 }] }],
    });
    expect(schemes.statusCode, schemes.body).toBe(400);
    expect(schemes.json().error.message).toContain('schemes do nothing on the channel checkout');
    expect(schemes.json().error.details).toEqual({ field: 'schemes' });
    // On the tills' channel both are taken as before.
    expect((await dry({ consumer: { points: { [schemeId]: 100 } } })).statusCode).toBe(200);

    const used = await dry({ channel: 'checkout', consumer: { usages: { [oncePerCustomer]: 1 } } });
    expect(used.statusCode, used.body).toBe(200);
    expect(reasons(used.json())[oncePerCustomer]).toBe('usage_limit_reached');
    const unused = await dry({ channel: 'checkout', consumer: { usages: { [oncePerCustomer]: 0 } } });
    expect(reasons(unused.json())[oncePerCustomer]).toBe('applied');
  });
});
