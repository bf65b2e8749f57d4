import { describe, expect, it } from 'vitest';
import { sameRefundAsk } from '../../src/orders/refund-plan.js';

/**
 * docs/decisions.md, "Refunding an order from the portal": a refund asked again under its request
 * id is the first one only when it asks the same amount and the same positions in the same
 * quantities, however they are listed.
 */
describe('a portal refund asked again under its requestId', () => {
  const byPositions = {
    askedMinor: null,
    positions: [
      { positionId: 1, quantity: 1, amountMinor: 350 },
      { positionId: 2, quantity: 0.25, amountMinor: 55 },
    ],
  };

  it('is the same refund for the same positions and quantities, in any order', () => {
    const ask = {
      positions: [
        { positionId: 2, quantity: 0.25 },
        { positionId: 1, quantity: 1 },
      ],
    };
    expect(sameRefundAsk(byPositions, ask)).toBe(true);
    expect(sameRefundAsk({ askedMinor: 300, positions: [] }, { amount: 300 })).toBe(true);
    expect(sameRefundAsk({ askedMinor: null, positions: [] }, {})).toBe(true);
  });

  it('is another refund for another quantity, position, amount, or a position named twice', () => {
    const asks = [
      { positions: [{ positionId: 1, quantity: 1 }] },
      {
        positions: [
          { positionId: 1, quantity: 1 },
          { positionId: 2, quantity: 0.5 },
        ],
      },
      {
        positions: [
          { positionId: 1, quantity: 1 },
          { positionId: 3, quantity: 0.25 },
        ],
      },
      {
        positions: [
          { positionId: 1, quantity: 1 },
          { positionId: 1, quantity: 1 },
        ],
      },
      { amount: 405 },
      {},
    ];
    for (const ask of asks) expect(sameRefundAsk(byPositions, ask), JSON.stringify(ask)).toBe(false);
    expect(sameRefundAsk({ askedMinor: 300, positions: [] }, { amount: 301 })).toBe(false);
    expect(sameRefundAsk({ askedMinor: 300, positions: [] }, {})).toBe(false);
    expect(sameRefundAsk({ askedMinor: null, positions: [] }, { amount: 300 })).toBe(false);
  });
});
