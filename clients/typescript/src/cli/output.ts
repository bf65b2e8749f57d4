import { type Command, InvalidArgumentError } from 'commander';

/**
 * What a command prints: the answer and nothing else on stdout (messages and progress go to
 * stderr), as readable text, as JSON with --json, or one field with --field (for shell variables).
 */

export interface OutputOptions {
  json?: boolean;
  field?: string;
}

function scalar(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Rows of objects as a table with one column per field, aligned for reading. */
function table(rows: Record<string, unknown>[]): string {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cells = [columns, ...rows.map((r) => columns.map((c) => scalar(r[c])))];
  const widths = columns.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  return cells
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** The answer as people read it. */
export function readable(answer: unknown): string {
  if (Array.isArray(answer)) {
    if (answer.length === 0) return '(none)';
    if (answer.every((a) => typeof a === 'object' && a !== null && !Array.isArray(a))) {
      return table(answer as Record<string, unknown>[]);
    }
    return answer.map(scalar).join('\n');
  }
  if (typeof answer === 'object' && answer !== null) {
    const entries = Object.entries(answer);
    const width = Math.max(...entries.map(([k]) => k.length));
    return entries.map(([k, v]) => `${`${k}:`.padEnd(width + 2)}${scalar(v)}`).join('\n');
  }
  return scalar(answer);
}

export function render(answer: unknown, options: OutputOptions): string {
  if (options.field !== undefined) {
    const value = (answer as Record<string, unknown> | null)?.[options.field];
    if (value === undefined) {
      throw new InvalidArgumentError(`the answer has no field ${options.field}: ${JSON.stringify(answer)}`);
    }
    return scalar(value);
  }
  if (options.json) return JSON.stringify(answer ?? null, null, 2);
  return readable(answer);
}

/** Writes the answer where the command writes its output (program() in punchcard.ts sets it). */
export function print(answer: unknown, command: Command): void {
  const text = `${render(answer, command.optsWithGlobals<OutputOptions>())}\n`;
  const { writeOut } = command.configureOutput();
  if (writeOut) writeOut(text);
  else process.stdout.write(text);
}
