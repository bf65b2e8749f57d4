import { Type } from 'typebox';

/**
 * What the receipt says of the merchant who issued it (docs/decisions.md, "Receipts a shop can hand
 * out"), as the operator API and the merchant portal's API set and answer it. A field left out of
 * a change is not set: the receipt then leaves it out.
 */

// Printable text: no control characters, at least one that is not a space.
const LINE = '^[^\\u0000-\\u001F\\u007F]*[^\\s\\u0000-\\u001F\\u007F][^\\u0000-\\u001F\\u007F]*$';
// The same, with line breaks (\n) between the lines of an address.
const LINES = '^[^\\u0000-\\u0009\\u000B-\\u001F\\u007F]*\\S[^\\u0000-\\u0009\\u000B-\\u001F\\u007F]*$';

const legalName = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: LINE,
  description: 'The legal name of the business, e.g. "Café Müller GmbH".',
});
const address = Type.String({
  minLength: 1,
  maxLength: 300,
  pattern: LINES,
  description: 'The postal address as it is printed, lines separated by a line break (\\n), at most 6 lines.',
});
const taxNumber = Type.String({
  minLength: 4,
  maxLength: 14,
  pattern: '^[A-Z]{2}[0-9A-Z+*]{2,12}$',
  description:
    'The VAT identification number: the two-letter country prefix and 2 to 12 digits or capital letters, ' +
    'without spaces, e.g. DE123456789.',
});

export const ReceiptDetailsBodySchema = Type.Object(
  {
    legalName: Type.Optional(legalName),
    address: Type.Optional(address),
    taxNumber: Type.Optional(taxNumber),
  },
  { title: 'ReceiptDetailsChange' },
);

export const ReceiptDetailsSchema = Type.Object(
  {
    legalName: Type.Union([legalName, Type.Null()]),
    address: Type.Union([address, Type.Null()]),
    taxNumber: Type.Union([taxNumber, Type.Null()]),
  },
  { title: 'ReceiptDetails' },
);
