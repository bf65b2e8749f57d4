import { readFileSync } from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';
import { AdminClient } from '../admin-client.js';
import { print } from './output.js';

/** `punchcard admin ...`: the operator tasks of the operator API (Authorization: Bearer ADMIN_TOKEN). */

export interface Connection {
  baseUrl: string;
  token?: string;
}

export function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a positive integer');
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

export function operatorToken(command: Command): string {
  const o = command.optsWithGlobals<Connection>();
  const token = o.token ?? process.env.PUNCHCARD_ADMIN_TOKEN ?? process.env.ADMIN_TOKEN;
  if (!token) {
    throw new InvalidArgumentError('the operator token: --token, PUNCHCARD_ADMIN_TOKEN or ADMIN_TOKEN');
  }
  return token;
}

function action<A extends unknown[]>(run: (admin: AdminClient, ...args: A) => Promise<unknown>) {
  return async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const { baseUrl } = command.optsWithGlobals<Connection>();
    const admin = new AdminClient({ baseUrl, token: operatorToken(command) });
    print(await run(admin, ...(args.slice(0, -1) as A)), command);
  };
}

export function adminCommands(root: Command): void {
  const admin = root
    .command('admin')
    .description('operator tasks of the operator API')
    .option('--field <name>', 'print only this field of the answer');

  admin
    .command('devkey')
    .description('issue a developer key to a POS vendor (the key is shown once)')
    .argument('<name>', 'the vendor')
    .action(action((a, name: string) => a.createDevKey(name)));
  admin
    .command('devkeys')
    .description('list the developer keys (without the keys)')
    .action(action((a) => a.devKeys()));
  admin
    .command('revoke-devkey')
    .description('revoke a developer key for good: its terminals are refused from the next request on')
    .argument('<id>', 'the id devkeys lists', positiveInteger)
    .action(action((a, id: number) => a.revokeDevKey(id)));

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
    .action(action((a, serviceUserName: string) => a.terminals(serviceUserName)));
  admin
    .command('activate')
    .description('activate a terminal so that it may upload baskets')
    .argument('<trackingUnitId>')
    .action(action((a, trackingUnitId: string) => a.activateTerminal(trackingUnitId)));
  admin
    .command('deactivate')
    .description('deactivate a terminal: refused on every operation until activated again')
    .argument('<trackingUnitId>')
    .action(action((a, trackingUnitId: string) => a.deactivateTerminal(trackingUnitId)));

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
  admin
    .command('otp')
    .description(
      'issue a one-time password of a profile (given at the till or the web shop instead of a card)',
    )
    .argument('<profileId>', 'the profile', positiveInteger)
    .action(action((a, profileId: number) => a.createOneTimePassword(profileId)));

  admin
    .command('checkout-client')
    .description('issue web-shop credentials to a merchant (access token and security secret, shown once)')
    .argument('<serviceUserName>')
    .argument('<name>', 'the web shop')
    .action(
      action((a, serviceUserName: string, name: string) => a.createCheckoutClient(serviceUserName, name)),
    );
  admin
    .command('checkout-clients')
    .description("list a merchant's checkout clients (without credentials)")
    .argument('<serviceUserName>')
    .action(action((a, serviceUserName: string) => a.checkoutClients(serviceUserName)));
  admin
    .command('revoke-checkout-client')
    .description('revoke a checkout client at once')
    .argument('<serviceUserName>')
    .argument('<id>', 'the id checkout-clients lists', positiveInteger)
    .action(action((a, serviceUserName: string, id: number) => a.revokeCheckoutClient(serviceUserName, id)));

  admin
    .command('portal-user')
    .description('give a merchant a user of the merchant portal')
    .argument('<serviceUserName>')
    .argument('<email>')
    .requiredOption(
      '--password <password>',
      'at least 10 characters (default: PUNCHCARD_PORTAL_PASSWORD)',
      process.env.PUNCHCARD_PORTAL_PASSWORD,
    )
    .option('--role <role>', 'owner or staff', 'owner')
    .option('--lang <lang>', 'de or en')
    .action(
      action(
        (a, serviceUserName: string, email: string, o: { password: string; role: string; lang?: string }) =>
          a.createPortalUser(serviceUserName, {
            email,
            password: o.password,
            role: o.role as 'owner' | 'staff',
            ...(o.lang ? { lang: o.lang as 'de' | 'en' } : {}),
          }),
      ),
    );
}
