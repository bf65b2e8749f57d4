import type { FastifyRequest } from 'fastify';
import { type Schema, normaliseBody } from '../wire/normalise.js';
import type { BasketBody, LegacyBodyReader } from '../baskets/basket.types.js';
import { BasketSchema } from '../wire/documents/basket.schemas.js';

/**
 * Only for baskets uploaded before the parsed basket was stored with them (docs/decisions.md,
 * "The parsed basket is stored versioned"); newer ones are never read through this.
 *
 * An upload stores the JSON text as the till sent it when its field names were already those of
 * the documents (amounts exactly as written, and no second serialisation on the hot path), and
 * else the normalised body. Reading it back goes through the same normalising and the same
 * compiled validator, with its type coercion, as the upload did, so that grant and return work on
 * the very body the upload priced.
 */
export function legacyBodyReader(request: FastifyRequest): LegacyBodyReader {
  const validate = request.compileValidationSchema(BasketSchema);
  return (stored) => {
    const body = normaliseBody(stored, BasketSchema as Schema);
    if (!validate(body)) {
      throw new Error(`a stored basket no longer passes validation: ${JSON.stringify(validate.errors)}`);
    }
    return body as BasketBody;
  };
}
