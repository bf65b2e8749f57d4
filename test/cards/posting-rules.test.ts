import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  cardCondition,
  checkDispose,
  parseBalanceAmount,
  planMerge,
  planTopUp,
  planWithdrawal,
} from '../../src/ledger/rules/posting-rules.js';

const account = (balanceMinor: number, maxBalanceMinor: number | null = null) => ({
  accountId: 7,
  balanceMinor,
  open: true,
  maxBalanceMinor,
});

describe('posting rules', () => {
  it('amounts: > 0, at most two decimals, plain decimal text', () => {
    expect(parseBalanceAmount('12.5', 2)).toEqual({ ok: true, amountMinor: 1250 });
    expect(parseBalanceAmount('0.01', 2)).toEqual({ ok: true, amountMinor: 1 });
    expect(parseBalanceAmount('100', 2)).toEqual({ ok: true, amountMinor: 10000 });
    expect(parseBalanceAmount('1.10', 2)).toEqual({ ok: true, amountMinor: 110 });
    for (const bad of ['0', '0.00', '-1', '1.001', '1e2', '+1', '', '.5', '1.', 'NaN']) {
      expect(parseBalanceAmount(bad, 2), bad).toEqual({ ok: false, reason: 'invalid_amount' });
    }
    expect(parseBalanceAmount('1.5', 0)).toEqual({ ok: false, reason: 'invalid_amount' });
  });

  it('a withdrawal debits the customer and credits the liability, guarded by the amount', () => {
    const plan = planWithdrawal({
      condition: 'usable',
      account: account(500),
      liabilityAccountId: 1,
      amountMinor: 200,
    });
    expect(plan).toEqual({
      ok: true,
      transfer: {
        kind: 'withdrawal',
        debitAccountId: 7,
        creditAccountId: 1,
        amountMinor: 200,
        customerAccountId: 7,
        customerDeltaMinor: -200,
        guardMinBalanceMinor: 200,
        guardMaxBalanceMinor: null,
      },
    });
    expect(
      planWithdrawal({ condition: 'usable', account: account(199), liabilityAccountId: 1, amountMinor: 200 }),
    ).toEqual({
      ok: false,
      reason: 'insufficient_balance',
    });
    expect(
      planWithdrawal({ condition: 'locked', account: account(999), liabilityAccountId: 1, amountMinor: 1 }),
    ).toEqual({
      ok: false,
      reason: 'card_unusable',
    });
  });

  it('a top-up credits the customer; maxAmount bounds the balance', () => {
    const plan = planTopUp({
      condition: 'usable',
      account: account(4000, 5000),
      liabilityAccountId: 1,
      amountMinor: 1000,
    });
    expect(plan).toMatchObject({
      ok: true,
      transfer: { debitAccountId: 1, creditAccountId: 7, guardMaxBalanceMinor: 4000 },
    });
    expect(
      planTopUp({
        condition: 'usable',
        account: account(4000, 5000),
        liabilityAccountId: 1,
        amountMinor: 1001,
      }),
    ).toEqual({
      ok: false,
      reason: 'above_maximum_balance',
    });
    expect(
      planTopUp({ condition: 'expired', account: account(0), liabilityAccountId: 1, amountMinor: 1 }),
    ).toEqual({
      ok: false,
      reason: 'card_unusable',
    });
  });

  it('property: an accepted withdrawal never leaves a negative balance, a refused one changes nothing', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e9 }), fc.integer({ min: 1, max: 1e9 }), (balance, amount) => {
        const plan = planWithdrawal({
          condition: 'usable',
          account: account(balance),
          liabilityAccountId: 1,
          amountMinor: amount,
        });
        if (plan.ok) {
          expect(balance + plan.transfer.customerDeltaMinor).toBeGreaterThanOrEqual(0);
          expect(plan.transfer.guardMinBalanceMinor).toBe(amount);
        } else {
          expect(balance).toBeLessThan(amount);
        }
      }),
    );
  });

  it('merge moves the whole card balance; nothing to move is no transfer', () => {
    expect(planMerge({ cardAccountId: 3, cardBalanceMinor: 725, profileAccountId: 9 })).toMatchObject({
      kind: 'merge',
      debitAccountId: 3,
      creditAccountId: 9,
      amountMinor: 725,
    });
    expect(planMerge({ cardAccountId: 3, cardBalanceMinor: 0, profileAccountId: 9 })).toBeNull();
  });

  it('card condition: expiry is derived from the time given; dispose needs zero', () => {
    expect(cardCondition({ state: 'registered', expiresAtMs: 1000 }, 999)).toBe('usable');
    expect(cardCondition({ state: 'registered', expiresAtMs: 1000 }, 1000)).toBe('expired');
    expect(cardCondition({ state: 'locked', expiresAtMs: null }, 0)).toBe('locked');
    expect(checkDispose({ condition: 'usable', ownBalanceMinor: 1 })).toEqual({
      ok: false,
      reason: 'balance_not_zero',
    });
    expect(checkDispose({ condition: 'expired', ownBalanceMinor: 0 })).toEqual({ ok: true });
  });
});
