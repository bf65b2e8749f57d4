/**
 * The signal of one send to the outside (a mail, a push message, a webhook): it aborts after the
 * send's own limit, or sooner when `stop` aborts (the dispatcher's stop cutting off the sends in
 * flight, docs/decisions.md "Outbox and dispatcher").
 */
export function sendSignal(limitMs: number, stop?: AbortSignal): AbortSignal {
  const limit = AbortSignal.timeout(limitMs);
  return stop ? AbortSignal.any([stop, limit]) : limit;
}
