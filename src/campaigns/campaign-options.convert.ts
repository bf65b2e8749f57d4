import { RuleDefinitionError, amountToMinor } from './rule.convert.js';
import type { CampaignBody } from './rule.schemas.js';

/**
 * Budgets of an operator's campaign body (docs/decisions.md, "Budgets"): they become the campaign's
 * `budget_*` columns, the limits the grant enforces now, and stay in the version's definition as
 * they were sent.
 */

/** The budgets as the campaign's columns store them; all null: not limited. */
export interface BudgetColumns {
  readonly budget_total_minor: number | null;
  readonly budget_redemptions: number | null;
  readonly budget_period: 'day' | 'week' | 'month' | null;
  readonly budget_period_minor: number | null;
}

export const NO_BUDGET: BudgetColumns = {
  budget_total_minor: null,
  budget_redemptions: null,
  budget_period: null,
  budget_period_minor: null,
};

function fail(field: string, problem: string): never {
  throw new RuleDefinitionError(field, problem);
}

const MAX_REDEMPTIONS = 1_000_000_000;

/** The budgets of a campaign body as columns; absent, null or all members null: not limited. */
export function convertBudget(body: CampaignBody, exponent: number): BudgetColumns {
  const b = body.budget;
  if (b === undefined || b === null) return NO_BUDGET;
  const amount = (value: number | null | undefined, field: string) =>
    value === undefined || value === null ? null : amountToMinor(value, field, exponent, false);
  let redemptions: number | null = null;
  if (b.redemptions !== undefined && b.redemptions !== null) {
    redemptions = b.redemptions;
    if (!Number.isSafeInteger(redemptions) || redemptions < 1) {
      fail('budget.redemptions', 'must be a whole number of at least 1.');
    }
    if (redemptions > MAX_REDEMPTIONS) fail('budget.redemptions', 'must be at most 1,000,000,000.');
  }
  const period = b.period ?? null;
  const periodMinor = amount(b.periodAmount, 'budget.periodAmount');
  if (period !== null && periodMinor === null) {
    fail('budget.periodAmount', `is required with a period (the discount budget per ${period}).`);
  }
  if (period === null && periodMinor !== null) {
    fail('budget.period', 'is required with a periodAmount: day, week or month.');
  }
  return {
    budget_total_minor: amount(b.total, 'budget.total'),
    budget_redemptions: redemptions,
    budget_period: period,
    budget_period_minor: periodMinor,
  };
}

/** Whether the columns limit the campaign at all. */
export function hasBudget(c: BudgetColumns): boolean {
  return c.budget_total_minor !== null || c.budget_redemptions !== null || c.budget_period !== null;
}
