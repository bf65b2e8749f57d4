import { type Command, InvalidArgumentError } from 'commander';
import { CheckoutClient } from '../checkout-client.js';
import { type Connection, positiveInteger } from './admin-commands.js';
import { print } from './output.js';

/**
 * `punchcard checkout ...`: what a web shop's operator does with its checkout client (top-ups,
 * refunds, profiles, webhooks), with the client's credentials from options or the environment.
 */

interface CheckoutCredentials extends Connection {
  accessToken?: string;
  securitySecret?: string;
}

function minorUnits(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError('an amount in minor units (cents), a positive integer');
  }
  return n;
}

function checkoutOf(command: Command): CheckoutClient {
  const o = command.optsWithGlobals<CheckoutCredentials>();
  const accessToken = o.accessToken ?? process.env.PUNCHCARD_CHECKOUT_TOKEN;
  if (!accessToken) {
    throw new InvalidArgumentError(
      "the checkout client's access token: --access-token or PUNCHCARD_CHECKOUT_TOKEN",
    );
  }
  const securitySecret = o.securitySecret ?? process.env.PUNCHCARD_CHECKOUT_SECRET ?? '';
  return new CheckoutClient({ baseUrl: o.baseUrl, accessToken, securitySecret });
}

function action<A extends unknown[]>(run: (checkout: CheckoutClient, ...args: A) => Promise<unknown>) {
  return async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    print(await run(checkoutOf(command), ...(args.slice(0, -1) as A)), command);
  };
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

export function checkoutCommands(root: Command): void {
  const checkout = root
    .command('checkout')
    .description("a web shop's operations through the checkout API (Authorization: Token)")
    .option('--access-token <token>', 'the checkout client (default: PUNCHCARD_CHECKOUT_TOKEN)')
    .option('--security-secret <secret>', 'signs orders (default: PUNCHCARD_CHECKOUT_SECRET)')
    .option('--field <name>', 'print only this field of the answer');

  checkout
    .command('profile')
    .description('read a profile with its balance, by customer card id or one-time password')
    .argument('<reference>')
    .action(action((c, reference: string) => c.readProfile(reference)));
  checkout
    .command('topup')
    .description('top up the balance of a profile (amount in minor units); retried under one idempotency key')
    .argument('<reference>', 'customer card id or one-time password')
    .argument('<amount>', 'minor units, 2000 for 20.00', minorUnits)
    .requiredOption('--currency <code>', 'ISO 4217 currency of the balance', 'EUR')
    .option('--idempotency-key <key>', 'the key to send (default: a new one)')
    .action(
      action((c, reference: string, amount: number, o: { currency: string; idempotencyKey?: string }) =>
        c.topUp(
          reference,
          { amount, currency: o.currency },
          o.idempotencyKey ? { idempotencyKey: o.idempotencyKey } : {},
        ),
      ),
    );
  checkout
    .command('refund')
    .description('refund an order, whole or --amount of it: the money goes back to the profile')
    .argument('<basketId>')
    .option('--amount <minor>', 'refund only this much (minor units)', minorUnits)
    .option('--idempotency-key <key>', 'the key to send (default: a new one)')
    .action(
      action((c, basketId: string, o: { amount?: number; idempotencyKey?: string }) =>
        c.refundOrder(
          basketId,
          o.amount === undefined ? {} : { amount: o.amount },
          o.idempotencyKey ? { idempotencyKey: o.idempotencyKey } : {},
        ),
      ),
    );
  checkout
    .command('order')
    .description('read an order back, with its refunds')
    .argument('<basketId>')
    .action(action((c, basketId: string) => c.readOrder(basketId)));
  checkout
    .command('orders')
    .description("a profile's orders, every page")
    .argument('<reference>', 'customer card id or one-time password')
    .option('--from <time>', 'created at or after (ISO 8601)')
    .option('--to <time>', 'created before (ISO 8601)')
    .action(
      action((c, reference: string, o: { from?: string; to?: string }) =>
        all(
          c.orders(reference, {
            ...(o.from ? { createdFrom: o.from } : {}),
            ...(o.to ? { createdTo: o.to } : {}),
          }),
        ),
      ),
    );
  checkout
    .command('transactions')
    .description("a profile's balance transactions, every page")
    .argument('<reference>', 'customer card id or one-time password')
    .option('--from <time>', 'created at or after (ISO 8601)')
    .option('--to <time>', 'created before (ISO 8601)')
    .action(
      action((c, reference: string, o: { from?: string; to?: string }) =>
        all(
          c.transactions(reference, {
            ...(o.from ? { createdFrom: o.from } : {}),
            ...(o.to ? { createdTo: o.to } : {}),
          }),
        ),
      ),
    );

  const webhooks = checkout.command('webhooks').description("the merchant's webhooks");
  webhooks
    .command('list')
    .description('every webhook with its secret')
    .action(action((c) => all(c.webhooks())));
  webhooks
    .command('add')
    .description('register a webhook (the answer holds its signing secret)')
    .argument('<url>', 'http(s) address that receives the events')
    .option('--event <event>', 'the event', 'transaction.status.changed')
    .action(action((c, url: string, o: { event: string }) => c.createWebhook({ url, event: o.event })));
  webhooks
    .command('deliveries')
    .description('the deliveries with every attempt, every page')
    .option('--webhook <id>', 'of one webhook')
    .action(
      action((c, o: { webhook?: string }) =>
        all(c.webhookDeliveries(o.webhook ? { webhookId: o.webhook } : {})),
      ),
    );
  webhooks
    .command('redeliver')
    .description('send a delivery again now')
    .argument('<id>', 'the delivery', positiveInteger)
    .action(action((c, id: number) => c.redeliverWebhookDelivery(id)));
  webhooks
    .command('delete')
    .description('delete a webhook: no further deliveries')
    .argument('<id>')
    .action(
      action(async (c, id: string) => {
        await c.deleteWebhook(id);
        return { id, deleted: true };
      }),
    );
}
