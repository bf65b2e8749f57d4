import { auth } from '../wire/openapi.js';

/** Security requirements of the checkout routes, naming every header a call needs. */
export const checkoutAuth = { token: auth.checkoutToken, signed: auth.checkoutSigned };

/** The headers of an answer to a write under an optional Idempotency-Key. */
export const keyedAnswerHeaders = {
  'Idempotent-Replayed': {
    type: 'string',
    enum: ['true'],
    description: 'Present on the replay of an earlier answer under the same Idempotency-Key.',
  },
} as const;

/** A 2xx answer of such a write, with its headers in the document. */
export function keyedAnswer<T extends object>(description: string, schema: T): T {
  return { ...schema, description, headers: keyedAnswerHeaders };
}

/** The refusals of the Idempotency-Key, by status, to merge into a route's error descriptions. */
export const keyErrors = {
  400: 'Idempotency-Key malformed (idempotency_key_invalid)',
  409:
    'The same Idempotency-Key is still being processed after a wait of 10 s (idempotency_key_in_flight); ' +
    'a key whose request never finished (a server stopped, a connection lost) is free for the same request again a minute after it was taken',
  422: 'idempotency_key_reused (the key was used with another method, path or body)',
};

/**
 * The description of a keyed write: the optional Idempotency-Key and what a retry gets.
 */
export const keyedDescription =
  ' Optional `Idempotency-Key` (1 to 255 printable ASCII characters, kept 24 h per client): the same key ' +
  'with the same method, path and body books nothing more and answers the first answer byte for byte with ' +
  '`Idempotent-Replayed: true` (a duplicate sent while the first is still running waits for its answer); ' +
  'the key with another request answers 422 `idempotency_key_reused`.';

export const pricingErrors =
  'unknown_plu, duplicate_plu, price_missing, vat_rate_missing (details name the position), menu_unknown, total_mismatch (details.expectedTotalGross)';
