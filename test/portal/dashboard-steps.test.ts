import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DashboardDay, FIGURES } from '../../src/reports/dashboard.store.js';
import { dashboardStep, periodSteps, sumBySteps } from '../../src/reports/dashboard-steps.js';

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const plus = (day: string, n: number) => dayOf(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS);

const figure = fc.integer({ min: -50_000, max: 500_000 });
const dayRow = (from: string, days: number) =>
  fc
    .record({
      offset: fc.integer({ min: -10, max: days + 10 }),
      outletId: fc.constantFrom(1, 2, 3, null),
      values: fc.array(figure, { minLength: FIGURES.length, maxLength: FIGURES.length }),
    })
    .map(({ offset, outletId, values }) => {
      const row = { day: plus(from, offset), outletId } as DashboardDay;
      FIGURES.forEach((k, i) => (row[k] = values[i] ?? 0));
      return row;
    });

/** A period of 1 to 366 days from a day between 2024 and 2027, and days in and around it, one row per day and outlet. */
const periodWithDays = fc
  .record({
    startMs: fc.integer({ min: Date.parse('2024-01-01'), max: Date.parse('2027-12-31') }),
    days: fc.integer({ min: 1, max: 366 }),
  })
  .chain(({ startMs, days }) => {
    const from = dayOf(startMs - (startMs % DAY_MS));
    return fc.record({
      from: fc.constant(from),
      to: fc.constant(plus(from, days - 1)),
      days: fc
        .array(dayRow(from, days), { maxLength: 300 })
        .map((rows) => [...new Map(rows.map((r) => [`${r.day}/${r.outletId}`, r])).values()]),
    });
  });

describe('the dashboard by day, week or month', () => {
  it('up to 90 days by day, up to 180 by week, longer by month', () => {
    expect(dashboardStep('2026-11-01', '2026-11-01')).toBe('day');
    expect(dashboardStep('2026-08-05', '2026-11-02')).toBe('day'); // 90 days
    expect(dashboardStep('2026-08-04', '2026-11-02')).toBe('week'); // 91 days
    expect(dashboardStep('2026-05-07', '2026-11-02')).toBe('week'); // 180 days
    expect(dashboardStep('2026-05-06', '2026-11-02')).toBe('month'); // 181 days
    expect(dashboardStep('2025-11-29', '2026-11-28')).toBe('month'); // the year of a café
  });

  it('weeks run Monday to Sunday and months from the 1st, cut to the period at both ends', () => {
    expect(periodSteps('2026-11-04', '2026-11-20', 'week')).toEqual([
      { from: '2026-11-04', to: '2026-11-08', whole: false },
      { from: '2026-11-09', to: '2026-11-15', whole: true },
      { from: '2026-11-16', to: '2026-11-20', whole: false },
    ]);
    expect(periodSteps('2025-12-31', '2026-03-01', 'month')).toEqual([
      { from: '2025-12-31', to: '2025-12-31', whole: false },
      { from: '2026-01-01', to: '2026-01-31', whole: true },
      { from: '2026-02-01', to: '2026-02-28', whole: true },
      { from: '2026-03-01', to: '2026-03-01', whole: false },
    ]);
  });

  it('the steps cover every day of the period once, in order', () => {
    fc.assert(
      fc.property(periodWithDays, fc.constantFrom('day', 'week', 'month' as const), ({ from, to }, step) => {
        const spans = periodSteps(from, to, step);
        expect(spans[0]?.from).toBe(from);
        expect(spans.at(-1)?.to).toBe(to);
        spans.forEach((s, i) => {
          expect(s.from <= s.to).toBe(true);
          if (i > 0) expect(s.from).toBe(plus(spans[i - 1]?.to ?? '', 1));
          if (step === 'week' && s.from !== from) expect(new Date(`${s.from}T00:00:00Z`).getUTCDay()).toBe(1);
          if (step === 'month' && s.from !== from) expect(s.from.slice(8)).toBe('01');
        });
      }),
    );
  });

  it("the sums over a step, per outlet and over all outlets, equal the sums of the step's days", () => {
    fc.assert(
      fc.property(
        periodWithDays,
        fc.constantFrom('day', 'week', 'month' as const),
        ({ from, to, days }, step) => {
          const spans = periodSteps(from, to, step);
          const spanOf = (day: string) => spans.find((s) => s.from <= day && day <= s.to);
          const inPeriod = days.filter((d) => d.day >= from && d.day <= to);
          const perOutlet = sumBySteps(days, from, to, step, true);
          const overall = sumBySteps(days, from, to, step, false);
          expect(overall.map(({ from: f, to: t }) => [f, t])).toEqual(spans.map((s) => [s.from, s.to]));
          for (const k of FIGURES) {
            const want = new Map<string, number>();
            const wantAll = new Map<string, number>();
            for (const d of inPeriod) {
              const s = spanOf(d.day);
              if (!s) throw new Error(`no step for ${d.day}`);
              const key = `${s.from}/${d.outletId}`;
              want.set(key, (want.get(key) ?? 0) + d[k]);
              wantAll.set(s.from, (wantAll.get(s.from) ?? 0) + d[k]);
            }
            expect(new Map(perOutlet.map((r) => [`${r.from}/${r.outletId}`, r[k]])), k).toEqual(want);
            expect(
              overall.map((r) => r[k]),
              k,
            ).toEqual(spans.map((s) => wantAll.get(s.from) ?? 0));
          }
        },
      ),
    );
  });
});
