import type { Instant, ScheduleWindow } from './types.js';

const MS_PER_MINUTE = 60_000;
const MINUTES_PER_DAY = 1440;

export interface WallClock {
  isoDay: number;
  minute: number;
}

/** ISO weekday (1 = Monday) and minute of the day of an instant, on its own wall clock. */
export function wallClock(at: Instant): WallClock {
  const wallMinutes = Math.floor(at.utcMs / MS_PER_MINUTE) + at.offsetMinutes;
  const day = Math.floor(wallMinutes / MINUTES_PER_DAY);
  const minute = wallMinutes - day * MINUTES_PER_DAY;
  // 1970-01-01 (day 0) was a Thursday, ISO weekday 4.
  const isoDay = ((((day + 3) % 7) + 7) % 7) + 1;
  return { isoDay, minute };
}

/**
 * Whether an instant falls in one of the windows (docs/decisions.md, "Campaigns and schemes": wall-clock time in the offset
 * of the position's OrderTime, else of the basket Timestamp). An empty schedule is always open.
 * A window whose `toMinute` is below its `fromMinute` runs past midnight and belongs to the day it
 * starts on; `fromMinute === toMinute` is the whole day.
 */
export function inSchedule(schedule: readonly ScheduleWindow[], at: WallClock): boolean {
  if (schedule.length === 0) return true;
  const { isoDay, minute } = at;
  const previousDay = isoDay === 1 ? 7 : isoDay - 1;
  for (const w of schedule) {
    if (w.fromMinute === w.toMinute) {
      if (w.days.includes(isoDay)) return true;
    } else if (w.fromMinute < w.toMinute) {
      if (minute >= w.fromMinute && minute < w.toMinute && w.days.includes(isoDay)) return true;
    } else {
      if (minute >= w.fromMinute && w.days.includes(isoDay)) return true;
      if (minute < w.toMinute && w.days.includes(previousDay)) return true;
    }
  }
  return false;
}

/** validFrom inclusive, validTo exclusive; null = open. */
export function inValidity(validFromMs: number | null, validToMs: number | null, atMs: number): boolean {
  if (validFromMs !== null && atMs < validFromMs) return false;
  if (validToMs !== null && atMs >= validToMs) return false;
  return true;
}
