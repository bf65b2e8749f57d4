/** A JSON object as the OpenAPI document's builders and the request normaliser walk it. */
export type Json = Record<string, unknown>;

/** An object that is neither null nor an array. */
export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
