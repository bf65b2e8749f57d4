/**
 * The Punchcard client package: the SDK generated from the API document (every operation and type),
 * with `PosClient`, `AdminClient`, `CheckoutClient` and `verifyWebhook` where the wire needs care.
 */
export * from './generated/index.js';
export { client } from './generated/client.gen.js';
export { type Client, type Config, createClient, createConfig } from './generated/client/index.js';
export * from './punchcard-client.js';
export { AdminClient } from './admin-client.js';
export {
  CheckoutClient,
  type CheckoutClientOptions,
  type MoneyCallOptions,
  type TimeFilter,
  pages,
} from './checkout-client.js';
export * from './webhooks.js';
export { checkoutSecurityToken, securityTokenV2, transactionTokenInput } from './signing.js';
export { PunchcardError } from './client-errors.js';
