import { execFile } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';

const run = promisify(execFile);

export interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  pointer: string;
}

/** Lints an API document with Redocly CLI's recommended rules, offline and without telemetry. */
export async function lintDocument(doc: unknown, dir: string): Promise<LintProblem[]> {
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  const args = ['lint', file, '--extends', 'recommended', '--format', 'json'];
  let stdout: string;
  try {
    ({ stdout } = await run(resolve('node_modules/.bin/redocly'), args, { env, maxBuffer: 64 << 20 }));
  } catch (err) {
    // Redocly exits 1 when it found errors; its report is still on stdout.
    stdout = (err as { stdout?: string }).stdout ?? '';
    if (!stdout.trim().startsWith('{')) throw err;
  }
  const report = JSON.parse(stdout) as {
    problems: {
      ruleId: string;
      severity: 'error' | 'warn';
      message: string;
      location: { pointer: string }[];
    }[];
  };
  return report.problems.map((p) => ({
    ruleId: p.ruleId,
    severity: p.severity,
    message: p.message,
    pointer: p.location[0]?.pointer ?? '',
  }));
}

/** TypeScript's and node_modules' declarations, parsed once per process: every walk compiles them with the same options. */
const parsedLibraries = new Map<string, ts.SourceFile>();

/**
 * A compiler host that parses the files under node_modules (TypeScript's libraries, Node's types) once
 * per process and keeps them for the next compile; each walk's own files are read and parsed afresh.
 */
function hostKeepingLibraries(options: ts.CompilerOptions): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    if (!fileName.includes('/node_modules/'))
      return getSourceFile(fileName, languageVersion, onError, shouldCreate);
    let file = parsedLibraries.get(fileName);
    if (!file) {
      file = getSourceFile(fileName, languageVersion, onError, shouldCreate);
      if (file) parsedLibraries.set(fileName, file);
    }
    return file;
  };
  return host;
}

/**
 * Copies the README walk next to a freshly generated client (rewriting its import of the
 * package's generated code) and compiles both with strict TypeScript. Returns the diagnostics.
 */
export function compileWalk(dir: string): { diagnostics: string[]; walkModule: string } {
  const walk = readFileSync(resolve('test/api/five-minute-walk.ts'), 'utf8').replaceAll(
    '../../clients/typescript/src/generated/',
    './generated/',
  );
  writeFileSync(join(dir, 'five-minute-walk.ts'), walk);
  copyFileSync(resolve('clients/typescript/src/fetch-globals.d.ts'), join(dir, 'fetch-globals.d.ts'));
  // The generated client imports its runtime configuration from next to the generated folder.
  copyFileSync(resolve('clients/typescript/src/client-config.ts'), join(dir, 'client-config.ts'));
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts'],
    types: ['node'],
    strict: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: true,
    outDir: join(dir, 'out'),
    rootDir: dir,
  };
  const program = ts.createProgram(
    [join(dir, 'five-minute-walk.ts'), join(dir, 'fetch-globals.d.ts')],
    options,
    hostKeepingLibraries(options),
  );
  const emitted = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics].map((d) =>
    ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  );
  return { diagnostics, walkModule: join(dir, 'out', 'five-minute-walk.js') };
}
