#!/usr/bin/env node
// `npx punchcard ...`: runs the command-line tools from their TypeScript sources, generating the
// typed client from the API document first when it is not there yet (docs/decisions.md).
import { spawnSync } from 'node:child_process';
import process from 'node:process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
if (!existsSync(join(root, 'clients/typescript/src/generated/sdk.gen.ts'))) {
  process.stderr.write('punchcard: generating the TypeScript client from the API document first\n');
  const tsx = join(root, 'node_modules/tsx/dist/cli.mjs');
  const result = spawnSync(process.execPath, [tsx, 'scripts/client-generate.ts'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
const { register } = await import('tsx/esm/api');
register();
const { main } = await import(pathToFileURL(join(root, 'clients/typescript/src/cli/punchcard.ts')).href);
await main(process.argv);
