/** One entry of the error catalog (errors.ts). */
export interface CatalogEntry {
  /** Numeric id of the POS v3 wire (`ErrorId`). */
  readonly errorId: number;
  /** snake_case code of the checkout v1 and operator wire. */
  readonly code: string;
  readonly status:
    400 | 401 | 403 | 404 | 405 | 406 | 408 | 409 | 413 | 414 | 415 | 422 | 429 | 431 | 500 | 503;
  readonly text: string;
}

export function entry(
  errorId: number,
  code: string,
  status: CatalogEntry['status'],
  text: string,
): CatalogEntry {
  return { errorId, code, status, text };
}
