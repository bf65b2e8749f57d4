import { Type } from 'typebox';

/**
 * An e-mail address a mail server accepts (docs/decisions.md, "E-mail addresses"): a local part of
 * at most 64 characters, dot-separated atoms (no dot first, last or twice in a row, none of
 * `"(),:;<>[]\` or a space), and a domain of at least two dot-separated labels, each starting and
 * ending with a letter or digit, hyphens only inside. Letters beyond ASCII are allowed on both
 * sides. The one rule of every interface that takes an address mails are sent to.
 */
const SPECIALS = String.raw`\s@"(),:;<>\[\]\\.`;
const ATOM = `[^${SPECIALS}]+`;
const LABEL_EDGE = `[^${SPECIALS}!#$%&'*+/=?^\`{|}~_-]`;
const LABEL_INSIDE = `[^${SPECIALS}!#$%&'*+/=?^\`{|}~_]`;
const LABEL = `${LABEL_EDGE}(?:${LABEL_INSIDE}*${LABEL_EDGE})?`;
export const MAIL_ADDRESS_PATTERN = `(?=[^@]{1,64}@)${ATOM}(?:\\.${ATOM})*@${LABEL}(?:\\.${LABEL})+`;

/** An address field: the rule above, whole, or (`surroundingSpace`) with spaces around it that are trimmed later. */
export function MailAddress(options: { maxLength: number; surroundingSpace?: boolean }) {
  const space = options.surroundingSpace ? String.raw`\s*` : '';
  return Type.String({
    minLength: 3,
    maxLength: options.maxLength,
    pattern: `^${space}${MAIL_ADDRESS_PATTERN}${space}$`,
    description:
      'An e-mail address a mail server accepts: a local part of at most 64 characters of dot-separated atoms (no dot first, last or twice in a row), an @, and a domain of two labels or more (hyphens only inside a label); letters beyond ASCII allowed. Anything else is 400 invalid_request (docs/decisions.md, "E-mail addresses").',
  });
}

/** What a request is told of an address the rule refuses, instead of the rule's pattern. */
export const MAIL_ADDRESS_PROBLEM =
  'must be an e-mail address a mail server accepts, such as name@example.org';

/** Whether a failed pattern check (ajv's `params.pattern`) is the address rule's. */
export function isMailAddressPattern(pattern: unknown): boolean {
  return typeof pattern === 'string' && pattern.includes(MAIL_ADDRESS_PATTERN);
}
