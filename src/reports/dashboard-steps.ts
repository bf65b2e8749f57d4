import { type DashboardDay, type DashboardFigures, FIGURES, zero } from './dashboard.store.js';
import { addDays } from '../shared/time.js';
import { dayCount } from './dashboard-period.store.js';

/**
 * The dashboard's period in steps a person reads (docs/decisions.md, "The dashboard's steps: days,
 * weeks, months"): up to 90 days by day, up to 180 by week (Monday to Sunday), longer by calendar
 * month. A step cut by the period's first or last day holds only the period's days. Pure: the sums
 * of days already reconciled with the baskets.
 */

export type DashboardStep = 'day' | 'week' | 'month';

export const MAX_DAYS_BY_DAY = 90;
export const MAX_DAYS_BY_WEEK = 180;

export function dashboardStep(from: string, to: string): DashboardStep {
  const n = dayCount(from, to);
  return n <= MAX_DAYS_BY_DAY ? 'day' : n <= MAX_DAYS_BY_WEEK ? 'week' : 'month';
}

/** The first day of the step a day is in, ignoring the period: the day, its week's Monday, its month's 1st. */
export function stepStart(day: string, step: DashboardStep): string {
  if (step === 'day') return day;
  if (step === 'month') return `${day.slice(0, 8)}01`;
  const weekday = new Date(`${day}T00:00:00Z`).getUTCDay(); // 0 = Sunday
  return addDays(day, -((weekday + 6) % 7));
}

function nextStepStart(start: string, step: DashboardStep): string {
  if (step === 'day') return addDays(start, 1);
  if (step === 'week') return addDays(start, 7);
  const y = Number(start.slice(0, 4));
  const m = Number(start.slice(5, 7));
  return m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, '0')}-01`;
}

export interface StepSpan {
  /** First day of the step within the period. */
  from: string;
  /** Last day of the step within the period. */
  to: string;
  /** The whole week or month lies within the period. */
  whole: boolean;
}

/** Every step of the period, in order, cut to the period: from the first day to the last. */
export function periodSteps(from: string, to: string, step: DashboardStep): StepSpan[] {
  const spans: StepSpan[] = [];
  for (let start = stepStart(from, step); start <= to; start = nextStepStart(start, step)) {
    const end = addDays(nextStepStart(start, step), -1);
    spans.push({
      from: start < from ? from : start,
      to: end > to ? to : end,
      whole: start >= from && end <= to,
    });
  }
  return spans;
}

export interface DashboardStepRow extends DashboardFigures, StepSpan {
  outletId: number | null;
}

/**
 * The days (per day and outlet, in day order) summed per step: per step and outlet when
 * `byOutlet`, else per step over every outlet with every step of the period present (zero when
 * nothing happened in it, as a chart needs).
 */
export function sumBySteps(
  days: readonly DashboardDay[],
  from: string,
  to: string,
  step: DashboardStep,
  byOutlet: boolean,
): DashboardStepRow[] {
  const spans = periodSteps(from, to, step);
  const rows: DashboardStepRow[] = [];
  const index = new Map<string, DashboardStepRow>();
  let s = 0;
  const ordered = [...days].sort(
    (a, b) => a.day.localeCompare(b.day) || (a.outletId ?? 0) - (b.outletId ?? 0),
  );
  for (const span of spans) {
    if (!byOutlet) {
      const row = { ...span, outletId: null, ...zero() };
      rows.push(row);
      index.set(span.from, row);
    }
    for (; s < ordered.length; s += 1) {
      const d = ordered[s];
      if (!d || d.day > span.to) break;
      if (d.day < span.from) continue; // outside the period: not the period's to show
      const key = byOutlet ? `${span.from}/${d.outletId ?? ''}` : span.from;
      let row = index.get(key);
      if (!row) {
        row = { ...span, outletId: d.outletId, ...zero() };
        rows.push(row);
        index.set(key, row);
      }
      for (const k of FIGURES) row[k] += d[k];
    }
  }
  return byOutlet
    ? rows.sort((a, b) => a.from.localeCompare(b.from) || (a.outletId ?? 0) - (b.outletId ?? 0))
    : rows;
}
