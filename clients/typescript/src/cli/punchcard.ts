import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { AdminClient, PunchcardError } from '../punchcard-client.js';
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

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch (err) {
    throw new InvalidArgumentError(`${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Creates what a JSON file holds (one document or an array of them), one after the other, in order. */
async function eachOfFile<T>(file: string, create: (document: unknown) => Promise<T>): Promise<T[]> {
  const body = readJson(file);
  const created: T[] = [];
  for (const document of Array.isArray(body) ? body : [body]) created.push(await create(document));
  return created;
}

interface Connection {
  baseUrl: string;
  token?: string;
  field?: string;
}

function adminOf(command: Command): { admin: AdminClient; field: string | undefined } {
  const o = command.optsWithGlobals<Connection>();
  const token = o.token ?? process.env.PUNCHCARD_ADMIN_TOKEN ?? process.env.ADMIN_TOKEN;
  if (!token) {
    throw new InvalidArgumentError('the operator token: --token, PUNCHCARD_ADMIN_TOKEN or ADMIN_TOKEN');
  }
  return { admin: new AdminClient({ baseUrl: o.baseUrl, token }), field: o.field };
}

/** Prints an answer as JSON, or only one of its fields (for shell variables) with --field. */
function print(answer: unknown, field: string | undefined): void {
  if (field !== undefined) {
    const value = (answer as Record<string, unknown> | null)?.[field];
    if (value === undefined) throw new Error(`The answer has no field ${field}: ${JSON.stringify(answer)}`);
    process.stdout.write(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
    return;
  }
  process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
}

function action<A extends unknown[]>(run: (admin: AdminClient, ...args: A) => Promise<unknown>) {
  return async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const { admin, field } = adminOf(command);
    print(await run(admin, ...(args.slice(0, -1) as A)), field);
  };
}

export function program(): Command {
  const root = new Command('punchcard')
    .description('Punchcard from the command line: operator tasks and a till simulator')
    .option('--base-url <url>', 'the Punchcard instance', process.env.PUNCHCARD_BASE_URL ?? DEFAULT_BASE_URL)
    .option('--token <token>', 'operator token (default: PUNCHCARD_ADMIN_TOKEN or ADMIN_TOKEN)')
    .showHelpAfterError();

  const admin = root
    .command('admin')
    .description('operator tasks of the operator API; prints the answer as JSON')
    .option('--field <name>', 'print only this field of the answer');

  admin
    .command('devkey')
    .description('issue a developer key to a POS vendor')
    .argument('<name>', 'the vendor')
    .action(action((a, name: string) => a.createDevKey(name)));

  admin
    .command('merchant')
    .description('create a merchant')
    .argument('<serviceUserName>')
    .option('--display-name <name>', 'shown to people (default: the user name)')
    .option('--currency <code>', 'ISO 4217 currency', 'EUR')
    .option('--time-zone <zone>', 'IANA time zone', 'Europe/Berlin')
    .action(
      action((a, serviceUserName: string, o: { displayName?: string; currency: string; timeZone: string }) =>
        a.createMerchant({
          serviceUserName,
          displayName: o.displayName ?? serviceUserName,
          currency: o.currency,
          timeZone: o.timeZone,
        }),
      ),
    );

  admin
    .command('brand')
    .description('create a brand of a merchant')
    .argument('<serviceUserName>')
    .argument('<name>')
    .action(action((a, serviceUserName: string, name: string) => a.createBrand(serviceUserName, name)));

  admin
    .command('terminals')
    .description("list a merchant's terminals with their activation")
    .argument('<serviceUserName>')
    .action(action((a, serviceUserName: string) => a.listTerminals(serviceUserName)));

  admin
    .command('activate')
    .description('activate a terminal so that it may upload baskets')
    .argument('<trackingUnitId>')
    .action(action((a, trackingUnitId: string) => a.activateTerminal(trackingUnitId)));

  admin
    .command('campaigns')
    .description('create the campaigns of a JSON file (one campaign or an array)')
    .argument('<serviceUserName>')
    .argument('<file>')
    .action(
      action((a, serviceUserName: string, file: string) =>
        eachOfFile(file, (c) => a.createCampaign(serviceUserName, c as never)),
      ),
    );

  admin
    .command('schemes')
    .description('create the loyalty schemes of a JSON file (one scheme or an array)')
    .argument('<serviceUserName>')
    .argument('<file>')
    .action(
      action((a, serviceUserName: string, file: string) =>
        eachOfFile(file, (s) => a.createLoyaltyScheme(serviceUserName, s as never)),
      ),
    );

  admin
    .command('profile')
    .description('create a consumer profile, with a customer card when --card is given')
    .argument('<serviceUserName>')
    .option('--name <fullName>')
    .option('--email <address>')
    .option('--card <tokenId>', 'customer card to link to the profile')
    .action(
      action(async (a, serviceUserName: string, o: { name?: string; email?: string; card?: string }) => {
        const { id } = await a.createProfile(serviceUserName, {
          ...(o.name ? { fullName: o.name } : {}),
          ...(o.email ? { email: o.email } : {}),
        });
        if (o.card) await a.linkCard(id, { tokenId: o.card, tokenType: 0 });
        return a.readProfile(id);
      }),
    );

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
    .option('--json', 'print the summary as JSON')
    .action(async (o: Record<string, unknown>, command: Command) => {
      const g = command.optsWithGlobals<Connection>();
      const token = g.token ?? process.env.PUNCHCARD_ADMIN_TOKEN ?? process.env.ADMIN_TOKEN;
      if (!token)
        throw new InvalidArgumentError('the operator token: --token, PUNCHCARD_ADMIN_TOKEN or ADMIN_TOKEN');
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
          progress: process.stderr.isTTY === true && o.json !== true,
        },
        (line) => process.stderr.write(`${line}\n`),
      );
      process.stdout.write(o.json ? `${JSON.stringify(summary, null, 2)}\n` : `${formatSummary(summary)}\n`);
      if (Object.keys(summary.errors).length > 0) process.exitCode = 1;
    });
  return root;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await program().parseAsync(argv);
  } catch (err) {
    const text =
      err instanceof PunchcardError
        ? `refused: ${err.message}`
        : err instanceof Error
          ? err.message
          : String(err);
    process.stderr.write(`punchcard: ${text}\n`);
    process.exitCode = 1;
  }
}
