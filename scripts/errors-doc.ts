import { writeFileSync } from 'node:fs';
import { catalogEntries } from '../src/shared/errors.js';

/** Writes docs/errors.md from the error catalog (src/shared/errors.ts). */
export function errorsMarkdown(): string {
  const rows = catalogEntries().map((e) => `| ${e.errorId} | \`${e.code}\` | ${e.status} | ${e.text} |`);
  return [
    '# Error catalog',
    '',
    'Generated from `src/shared/errors.ts` by `npm run docs:errors`; a test fails when it is out of date.',
    '',
    'POS v3 (`/api/pos/v3`) answers `{ErrorId, ErrorText}` in JSON or XML (`<Error>`); a 500 outside',
    'production also carries `ErrorMessage` and `StackTrace`. The operator API answers',
    '`{"error": {"code", "message", "details"}}`.',
    '',
    '| ErrorId | code | HTTP | text |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync('docs/errors.md', errorsMarkdown());
}
