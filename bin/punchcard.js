#!/usr/bin/env node
// `npx punchcard ...`: runs the command-line tools from their TypeScript sources. The typed client
// they use is built by `npm install` (`prepare`), never here: the answer is all that goes to stdout
// (docs/decisions.md, "The command line").
import process from 'node:process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
if (!existsSync(join(root, 'clients/typescript/src/generated/sdk.gen.ts'))) {
  process.stderr.write(
    'punchcard: the TypeScript client is not built; run `npm install` (or `npm run client:build`) first\n',
  );
  process.exit(1);
}
const { register } = await import('tsx/esm/api');
register();
const { main } = await import(pathToFileURL(join(root, 'clients/typescript/src/cli/punchcard.ts')).href);
await main(process.argv);
