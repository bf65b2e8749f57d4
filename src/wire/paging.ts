import { type TSchema, Type } from 'typebox';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from '../shared/paging.js';
import { Nullable } from './schemas.js';

/**
 * The wire of the one paging style (docs/decisions.md, "Paging"): the query fields every list
 * takes and the page every list answers.
 */

export const pageQueryFields = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: PAGE_LIMIT_MAX,
      default: PAGE_LIMIT_DEFAULT,
      description: `Rows per page, 1 to ${PAGE_LIMIT_MAX}; default ${PAGE_LIMIT_DEFAULT}.`,
    }),
  ),
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 400,
      description: 'The `nextCursor` of the previous page, as it is; absent for the first page.',
    }),
  ),
};

export const createdQueryFields = {
  createdFrom: Type.Optional(
    Type.String({ format: 'date-time', description: 'Only rows created at or after (ISO 8601).' }),
  ),
  createdTo: Type.Optional(
    Type.String({ format: 'date-time', description: 'Only rows created before (ISO 8601).' }),
  ),
};

/** `{data, hasMore, nextCursor}` of `item`, under `title` in the document. */
export function PageOf<T extends TSchema>(item: T, title: string) {
  return Type.Object(
    {
      data: Type.Array(item),
      hasMore: Type.Boolean({ description: 'True when another page follows.' }),
      nextCursor: Nullable(
        Type.String({ description: 'Pass as `cursor` for the next page; null on the last page.' }),
      ),
    },
    { title },
  );
}

export const pageErrors = {
  400: 'Query invalid: limit out of bounds or a time not ISO 8601 (invalid_request); a cursor this list did not give out (invalid_cursor).',
};
