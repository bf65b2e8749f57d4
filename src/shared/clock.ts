/** The one place the service reads the time; pure code takes `now` as an argument instead. */
export interface Clock {
  nowMs(): number;
}

export const systemClock: Clock = { nowMs: () => Date.now() };
