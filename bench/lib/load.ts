import autocannon from 'autocannon';

export interface LoadResult {
  readonly requestsPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly total: number;
  readonly non2xx: number;
  readonly errors: number;
  /** Requests made (with `path`: each its own), answered or not when the run's time was up. */
  readonly started: number;
}

export interface LoadOptions {
  url: string;
  method?: 'POST' | 'GET';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationSec: number;
  /** A new path for every request (unique basket ids). */
  path?: (n: number) => string;
}

/** Drives HTTP load from this process with autocannon and reports throughput and latency. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  let n = 0;
  const pathFor = options.path;
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.durationSec,
    method: options.method ?? 'POST',
    headers: options.headers ?? {},
    body: options.body,
    requests: pathFor
      ? [
          {
            setupRequest: (req) => {
              n += 1;
              return { ...req, path: pathFor(n) };
            },
          },
        ]
      : undefined,
  });
  return {
    requestsPerSec: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    started: pathFor ? n : result.requests.sent,
  };
}
