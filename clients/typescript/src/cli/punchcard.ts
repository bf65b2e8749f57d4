import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { PunchcardError } from '../client-errors.js';
import { adminCommands, operatorToken } from './admin-commands.js';
import { checkoutCommands } from './checkout-commands.js';
import { formatSummary, simulate } from './simulate.js';

const DEFAULT_BASE_URL = 'http://localhost:8080';

function integer(min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`an integer of at least ${min}`);
    return n;
  };
}

function share(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('a share between 0 and 1');
  return n;
}

interface Connection {
  baseUrl: string;
  token?: string;
}

/**
 * Where the command writes and how it sets its exit code: the process's own streams for
 * `npx punchcard`; a caller that runs the command in its own process (the tests) passes its own.
 */
export interface CommandIo {
  writeOut(text: string): void;
  writeErr(text: string): void;
  /** The simulator draws its progress line only on a terminal. */
  errIsTTY: boolean;
  setExitCode(code: number): void;
}

function processIo(): CommandIo {
  return {
    writeOut: (text) => process.stdout.write(text),
    writeErr: (text) => process.stderr.write(text),
    errIsTTY: process.stderr.isTTY === true,
    setExitCode: (code) => {
      process.exitCode = code;
    },
  };
}

/**
 * The `punchcard` command: the answer, and nothing else, on stdout (text, or JSON with --json);
 * messages, progress and refusals on stderr (docs/decisions.md, "The command line").
 */
export function program(io: CommandIo = processIo()): Command {
  // Set before the subcommands are added, which copy both: every command writes through `io`
  // (print() in output.ts, help, refusals of arguments), and a refusal of an argument throws a
  // CommanderError for main() instead of calling process.exit.
  const root = new Command('punchcard')
    .configureOutput({ writeOut: (text) => io.writeOut(text), writeErr: (text) => io.writeErr(text) })
    .exitOverride()
    .description('Punchcard from the command line: operator tasks, checkout operations and a till simulator')
    .option('--base-url <url>', 'the Punchcard instance', process.env.PUNCHCARD_BASE_URL ?? DEFAULT_BASE_URL)
    .option('--token <token>', 'operator token (default: PUNCHCARD_ADMIN_TOKEN or ADMIN_TOKEN)')
    .option('--json', 'print answers as JSON (for scripts)')
    .showHelpAfterError();
  adminCommands(root);
  checkoutCommands(root);

  root
    .command('simulate')
    .description('set up a merchant and play a day of baskets through the POS interface (a smoke test)')
    .option('--merchant <serviceUserName>', 'merchant to create (default: a new sim-... name)')
    .option('--terminals <n>', 'terminals uploading side by side', integer(1), 4)
    .option('--baskets <n>', 'baskets in the day', integer(1), 1000)
    .option('--rate <n>', 'uploads per second over all terminals (0: as fast as they go)', integer(0), 50)
    .option('--grant-share <share>', 'share of baskets granted', share, 0.9)
    .option('--return-share <share>', 'share of granted baskets with a return', share, 0.05)
    .option('--card-share <share>', 'share of baskets with a customer card', share, 0.3)
    .option('--gzip', 'compress request bodies')
    .option('--seed <n>', 'repeat a run', integer(0), 1)
    .action(async (_o: Record<string, unknown>, command: Command) => {
      const o = command.optsWithGlobals<Record<string, unknown>>();
      const g = command.optsWithGlobals<Connection>();
      const token = operatorToken(command);
      const summary = await simulate(
        {
          baseUrl: g.baseUrl,
          adminToken: token,
          ...(typeof o.merchant === 'string' ? { merchant: o.merchant } : {}),
          terminals: o.terminals as number,
          baskets: o.baskets as number,
          rate: o.rate as number,
          grantShare: o.grantShare as number,
          returnShare: o.returnShare as number,
          cardShare: o.cardShare as number,
          gzip: o.gzip === true,
          seed: o.seed as number,
          progress: io.errIsTTY && o.json !== true,
        },
        (line) => io.writeErr(`${line}\n`),
      );
      io.writeOut(o.json ? `${JSON.stringify(summary, null, 2)}\n` : `${formatSummary(summary)}\n`);
      if (Object.keys(summary.errors).length > 0) io.setExitCode(1);
    });
  return root;
}

export async function main(argv: string[], io: CommandIo = processIo()): Promise<void> {
  try {
    await program(io).parseAsync(argv);
  } catch (err) {
    // Commander has written its refusal (or the help) already; its exit code is the command's.
    if (err instanceof CommanderError) {
      io.setExitCode(err.exitCode);
      return;
    }
    const text =
      err instanceof PunchcardError
        ? `refused: ${err.message}`
        : err instanceof Error
          ? err.message
          : String(err);
    io.writeErr(`punchcard: ${text}\n`);
    io.setExitCode(1);
  }
}
