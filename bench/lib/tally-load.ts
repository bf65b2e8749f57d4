import autocannon from 'autocannon';

/** One load run whose answers are sorted into booked, refused as expected, and anything else. */
export interface TalliedRun {
  readonly requestsPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly total: number;
  /** Answered 200. */
  readonly ok: number;
  /** The refusal the scenario expects (an exhausted balance). */
  readonly refused: number;
  /** Every other answer, transport errors and timeouts included. */
  readonly other: number;
  /**
   * Requests made that got no answer: those still in flight when the run's time was up, which the
   * service may have booked all the same.
   */
  readonly unanswered: number;
}

/** One request of a load run: its path, and the body and headers that change per request. */
export interface LoadRequest {
  path: string;
  body?: string;
  headers?: Record<string, string>;
}

export interface TalliedLoadOptions {
  url: string;
  connections: number;
  seconds: number;
  headers: Record<string, string>;
  body?: string;
  /** The n-th request. */
  next: (n: number) => LoadRequest;
  /** Whether a non-200 answer is the refusal the scenario expects. */
  isRefusal: (status: number, body: string) => boolean;
}

/** Drives POST load with autocannon, one request shape per call of `next`, and tallies the answers. */
export async function tallyLoad(options: TalliedLoadOptions): Promise<TalliedRun> {
  let n = 0;
  let ok = 0;
  let refused = 0;
  let other = 0;
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.seconds,
    method: 'POST',
    headers: options.headers,
    body: options.body,
    requests: [
      {
        setupRequest: (req) => {
          const r = options.next(n++);
          return {
            ...req,
            path: r.path,
            ...(r.body === undefined ? {} : { body: r.body }),
            headers: { ...req.headers, ...(r.headers ?? {}) },
          };
        },
        onResponse: (status, body) => {
          if (status === 200) ok++;
          else if (options.isRefusal(status, body)) refused++;
          else other++;
        },
      },
    ],
  });
  return {
    requestsPerSec: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    total: result.requests.total,
    ok,
    refused,
    other: other + result.errors + result.timeouts,
    unanswered: Math.max(0, n - ok - refused - other),
  };
}
