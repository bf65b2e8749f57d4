import type { LightMyRequestResponse } from 'fastify';
import type { Terminal } from '../support/harness.js';

/** POS token calls of a terminal, each operation signed over the inputs the POS interface v3 names for it. */
export function tokens(term: Terminal) {
  const path = (id: string, op = '') => `/tokens/${encodeURIComponent(id)}${op}`;
  return {
    register: (id: string, query: Record<string, string> = {}): Promise<LightMyRequestResponse> =>
      term.pos('POST', path(id), { query }),
    lock: (id: string) => term.pos('POST', path(id, '/lock')),
    dispose: (id: string) => term.pos('POST', path(id, '/dispose')),
    add: (id: string, amount: string, transactionId?: string) =>
      term.pos('POST', path(id, '/addBalance'), {
        query: { balanceToAdd: amount, ...(transactionId ? { transactionId } : {}) },
        sign: `${id}${amount}`,
      }),
    withdraw: (id: string, amount: string, transactionId?: string) =>
      term.pos('POST', path(id, '/withdrawBalance'), {
        query: { balanceToWithdraw: amount, ...(transactionId ? { transactionId } : {}) },
        sign: `${id}${amount}`,
      }),
  };
}

export const basket = {
  Timestamp: '2026-03-02T16:59:00+01:00',
  HasDiscounts: false,
  Positions: [{ PositionId: 1, ProductId: '1001', Unit: 0, Amount: 1, CurrentGrossPrice: 2.5 }],
};
