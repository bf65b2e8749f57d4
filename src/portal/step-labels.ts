import type { PortalLang } from '../portal-users/portal-user.store.js';
import type { DashboardStep, StepSpan } from '../reports/dashboard-steps.js';
import { BoundedCache } from '../shared/bounded-cache.js';
import { dayText } from './layout.js';

/** The formats of the steps' labels, made once per language and kind (building one costs some 80 µs). */
const formats = new BoundedCache<string, Intl.DateTimeFormat>(20);

function format(lang: PortalLang, kind: 'short-day' | 'month' | 'short-month'): Intl.DateTimeFormat {
  return formats.getOrSet(`${lang} ${kind}`, () => {
    const locale = lang === 'de' ? 'de-DE' : 'en-GB';
    const options: Intl.DateTimeFormatOptions =
      kind === 'short-day'
        ? lang === 'de'
          ? { day: '2-digit', month: '2-digit' }
          : { day: 'numeric', month: 'short' }
        : { month: kind === 'month' ? 'long' : 'short', year: 'numeric' };
    return new Intl.DateTimeFormat(locale, { ...options, timeZone: 'UTC' });
  });
}

const at = (day: string) => new Date(`${day}T00:00:00Z`);

/**
 * A step of the dashboard's table in the user's language: a day (14.11.2026), a week or a month cut
 * by the period as its days (09.11.2026 – 15.11.2026), a whole month by its name (November 2026).
 */
export function stepLabel(span: StepSpan, step: DashboardStep, lang: PortalLang): string {
  if (step === 'day') return dayText(span.from, lang);
  if (step === 'month' && span.whole) return format(lang, 'month').format(at(span.from));
  return `${dayText(span.from, lang)} – ${dayText(span.to, lang)}`;
}

/** A step under a chart's bar, short: its first day (14.11., 14 Nov), or the month (Nov. 2026, Nov 2026). */
export function chartLabel(span: StepSpan, step: DashboardStep, lang: PortalLang): string {
  return step === 'month' ? format(lang, 'short-month').format(at(span.from)) : shortDayText(span.from, lang);
}

/** A day (YYYY-MM-DD) under a chart's bar: 14.11., 14 Nov. */
export function shortDayText(day: string, lang: PortalLang): string {
  return format(lang, 'short-day').format(at(day));
}

/** Every day from `from` to `to` (YYYY-MM-DD, both included), oldest first. */
export function daysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  const end = at(to).getTime();
  for (let ms = at(from).getTime(); ms <= end; ms += 86_400_000)
    out.push(new Date(ms).toISOString().slice(0, 10));
  return out;
}
