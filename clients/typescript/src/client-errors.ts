/** A refused call: the HTTP status with the ErrorId (POS) or code (other APIs) of the catalog. */
export class PunchcardError extends Error {
  constructor(
    readonly status: number,
    readonly errorId: number | null,
    readonly code: string | null,
    readonly body: string,
  ) {
    super(
      `HTTP ${status}${errorId !== null ? ` ErrorId ${errorId}` : ''}${code ? ` ${code}` : ''}: ${body.slice(0, 300)}`,
    );
    this.name = 'PunchcardError';
  }

  /** The catalog's name for the error: the ErrorId, the code, or the HTTP status. */
  get key(): string {
    return this.errorId !== null ? String(this.errorId) : (this.code ?? `HTTP ${this.status}`);
  }
}

export function errorFrom(status: number, error: unknown): PunchcardError {
  const body = typeof error === 'string' ? error : JSON.stringify(error ?? null);
  let errorId: number | null = null;
  let code: string | null = null;
  if (typeof error === 'object' && error !== null) {
    const e = error as { ErrorId?: unknown; error?: { code?: unknown } };
    if (typeof e.ErrorId === 'number') errorId = e.ErrorId;
    if (typeof e.error?.code === 'string') code = e.error.code;
  } else {
    const m = /<ErrorId>(\d+)<\/ErrorId>/.exec(body) ?? /"ErrorId"\s*:\s*(\d+)/.exec(body);
    if (m?.[1]) errorId = Number(m[1]);
    const c = /"code"\s*:\s*"([^"]+)"/.exec(body);
    if (c?.[1]) code = c[1];
  }
  return new PunchcardError(status, errorId, code, body);
}

export type Result = { data?: unknown; error?: unknown; response?: Response };

/** The answer's data, or a PunchcardError for anything but a 2xx answer. */
export async function unwrap<T>(call: Promise<Result>): Promise<T> {
  const result = await call;
  const status = result.response?.status ?? 0;
  if (result.error !== undefined || !result.response?.ok) throw errorFrom(status, result.error);
  return result.data as T;
}
