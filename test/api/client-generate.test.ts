import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CLIENT_INPUTS,
  clientInputHash,
  clientUpToDate,
  recordClientInputs,
} from '../../scripts/client-generate.js';

// `npm run client:generate` (run by `npm run typecheck`) generates only when the client is not up
// to date with its inputs: these tests hold that any change of a route, a schema, the generator's
// settings or the lockfile makes it generate again, and so does a changed generated file.
describe('the generated client is regenerated whenever what it is made from changes', () => {
  let root: string;
  let generated: string;
  const write = (path: string, text: string) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  /** As the script does: hash the inputs, "generate", record. */
  const generate = () => {
    const input = clientInputHash(root);
    write('clients/typescript/src/generated/sdk.gen.ts', `export const made = ${JSON.stringify(input)};\n`);
    recordClientInputs(generated, input);
  };

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'punchcard-client-inputs-'));
    generated = join(root, 'clients/typescript/src/generated');
    write('src/app.ts', 'export const app = 1;\n');
    write('src/pos/basket.routes.ts', "export const route = '/baskets/:basketId';\n");
    write('src/pos/basket.schemas.ts', 'export const schema = { type: "object" };\n');
    write('scripts/client-generate.ts', "export const plugins = ['@hey-api/sdk'];\n");
    write('package-lock.json', '{"packages":{"node_modules/@hey-api/openapi-ts":{"version":"0.95.0"}}}\n');
    generate();
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('the inputs are every file under src/, the script and the lockfile', () => {
    expect(CLIENT_INPUTS).toEqual(['src', 'scripts/client-generate.ts', 'package-lock.json']);
  });

  it('up to date right after a generation, and again after a second one', () => {
    expect(clientUpToDate(root, generated)).toBe(true);
    generate();
    expect(clientUpToDate(root, generated)).toBe(true);
  });

  it('a changed route, a changed schema, an added or a removed source file: generated again', () => {
    for (const change of [
      () => write('src/pos/basket.routes.ts', "export const route = '/baskets/:basketId/grant';\n"),
      () => write('src/pos/basket.schemas.ts', 'export const schema = { type: "array" };\n'),
      () => write('src/checkout/order.routes.ts', "export const route = '/orders';\n"),
      () => unlinkSync(join(root, 'src/checkout/order.routes.ts')),
    ]) {
      change();
      expect(clientUpToDate(root, generated)).toBe(false);
      generate();
      expect(clientUpToDate(root, generated)).toBe(true);
    }
  });

  it("a file moved to another name with the same content is a change (a route's module)", () => {
    const text = "export const route = '/baskets/:basketId';\n";
    unlinkSync(join(root, 'src/pos/basket.routes.ts'));
    write('src/pos/basket-routes.ts', text);
    expect(clientUpToDate(root, generated)).toBe(false);
  });

  it("the generator's settings or the locked versions changed: generated again", () => {
    write('scripts/client-generate.ts', "export const plugins = ['@hey-api/sdk', '@hey-api/zod'];\n");
    expect(clientUpToDate(root, generated)).toBe(false);
    generate();
    write('package-lock.json', '{"packages":{"node_modules/@hey-api/openapi-ts":{"version":"0.96.0"}}}\n');
    expect(clientUpToDate(root, generated)).toBe(false);
  });

  it('a generated file changed or removed by hand, or no record: generated again', () => {
    write('clients/typescript/src/generated/sdk.gen.ts', 'export const made = "by hand";\n');
    expect(clientUpToDate(root, generated)).toBe(false);
    generate();
    unlinkSync(join(generated, 'sdk.gen.ts'));
    expect(clientUpToDate(root, generated)).toBe(false);
    generate();
    unlinkSync(join(generated, '.input-hash'));
    expect(clientUpToDate(root, generated)).toBe(false);
    write('clients/typescript/src/generated/.input-hash', 'not json');
    expect(clientUpToDate(root, generated)).toBe(false);
  });
});
