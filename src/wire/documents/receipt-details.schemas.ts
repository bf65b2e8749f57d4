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
// The VAT id as stored and answered: compact, capital letters.
const taxNumber = Type.String({
  minLength: 4,
  maxLength: 14,
  pattern: '^[A-Z]{2}[0-9A-Z+*]{2,12}$',
  description:
    'The VAT identification number: the two-letter country prefix and 2 to 12 digits or capital letters, ' +
    'without spaces, e.g. DE123456789.',
});
// The VAT id as a merchant types it: as printed on a letter, with spaces, dots or hyphens between
// its characters and in either case; stored compact and in capitals (receipt-details.ts).
const taxNumberInput = Type.String({
  minLength: 4,
  maxLength: 40,
  pattern: '^ *[A-Za-z]{2}(?:[ .-]*[0-9A-Za-z+*]){2,12} *$',
  description:
    'The VAT identification number: the two-letter country prefix and 2 to 12 digits or letters, e.g. ' +
    'DE123456789. Spaces, dots and hyphens between them (as printed, "DE 123 456 789") are dropped and ' +
    'letters are stored as capitals.',
});

export const ReceiptDetailsBodySchema = Type.Object(
  {
    legalName: Type.Optional(legalName),
    address: Type.Optional(address),
    taxNumber: Type.Optional(taxNumberInput),
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
