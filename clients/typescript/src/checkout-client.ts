import { randomUUID } from 'node:crypto';
import { type Client, createClient, createConfig } from './generated/client/index.js';
import * as sdk from './generated/sdk.gen.js';
import type {
  BalanceTransactionPage,
  BasketRequest,
  PlacedOrder,
  PlacedOrderPage,
  RefundRequest,
  WebhookDeliveryPage,
  WebhookPage,
  CheckoutProfile,
  Order,
  OrderRequest,
  PricedBasket,
  Refund,
  Reservation,
  ReservationRequest,
  TopUp,
  TopUpRequest,
  Webhook,
  WebhookRequest,
} from './generated/types.gen.js';
import { type Result, errorFrom, unwrap } from './client-errors.js';
import { checkoutSecurityToken } from './signing.js';

/**
 * The checkout interface v1 for a web shop (docs/decisions.md, "Checkout v1" and "The client
 * package"): `Authorization: Token`, orders signed over the exact bytes sent, an Idempotency-Key
 * made per operation and reused by every retry of it.
 */

export interface CheckoutClientOptions {
  baseUrl: string;
  /** The access token of the checkout client the operator issued. */
  accessToken: string;
  /** Its security secret: signs orders (Security-Token). */
  securitySecret: string;
  /** Further attempts after a timeout, a connection failure, 429, 5xx or a key still in flight (default 2). */
  retries?: number;
  /** Milliseconds before the first retry, doubled for each further one (default 250). */
  retryDelayMs?: number;
  /** The clock for the order's Timestamp, in milliseconds (default Date.now). */
  clock?: () => number;
  /** Makes idempotency keys (default crypto.randomUUID). */
  newIdempotencyKey?: () => string;
  /** The fetch to send with (a proxy, a custom agent, a recorder in tests). */
  fetch?: typeof fetch;
}

/** Per call: the idempotency key to use (one is made when absent; every retry reuses it). */
export interface MoneyCallOptions {
  idempotencyKey?: string;
}

/** The value of the signature headers until the request interceptor signs the request. */
const SIGNED_WHEN_SENT = 'signed-when-sent';

const RETRIED_STATUS = new Set([408, 429, 500, 502, 503, 504]);

function signOrders(client: Client, secret: string, clock: () => number): void {
  client.interceptors.request.use(async (request) => {
    const key = request.headers.get('Idempotency-Key');
    const path = new URL(request.url).pathname;
    if (request.method !== 'POST' || key === null || !path.endsWith('/api/v1/orders')) return request;
    const body = new Uint8Array(await request.arrayBuffer());
    const timestamp = String(Math.floor(clock() / 1000));
    const headers = new Headers(request.headers);
    headers.set('Timestamp', timestamp);
    headers.set('Security-Token', checkoutSecurityToken(secret, timestamp, key, body));
    return new Request(request.url, { method: request.method, headers, body });
  });
}

/** Lists filtered by time: createdFrom inclusive, createdTo exclusive (ISO 8601). */
export interface TimeFilter {
  createdFrom?: string;
  createdTo?: string;
  /** Items per page (1 to 100). */
  limit?: number;
}

/**
 * Every item of a list in the API's one paging style (`limit`, `cursor` in; `data`, `hasMore`,
 * `nextCursor` out), fetching the next page only when the caller reads past the current one.
 */
export async function* pages<T>(
  fetchPage: (cursor: {
    cursor?: string;
  }) => Promise<{ data: T[]; hasMore: boolean; nextCursor?: string | null }>,
): AsyncGenerator<T> {
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(cursor === undefined ? {} : { cursor });
    yield* page.data;
    if (!page.hasMore || !page.nextCursor) return;
    cursor = page.nextCursor;
  }
}

export class CheckoutClient {
  readonly client: Client;
  private readonly retries: number;
  private readonly retryDelayMs: number;
  private readonly newKey: () => string;

  constructor(readonly options: CheckoutClientOptions) {
    this.retries = options.retries ?? 2;
    this.retryDelayMs = options.retryDelayMs ?? 250;
    this.newKey = options.newIdempotencyKey ?? randomUUID;
    this.client = createClient(
      createConfig({
        baseUrl: options.baseUrl,
        auth: (scheme) => (scheme.name === 'Authorization' ? `Token ${options.accessToken}` : undefined),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
    );
    signOrders(this.client, options.securitySecret, options.clock ?? Date.now);
  }

  /**
   * Sends a call that moves money or creates something under one idempotency key, again after a
   * failure that leaves its outcome open; the service answers a repeated key with the first answer.
   */
  private async once<T>(call: (key: string) => Promise<Result>, options: MoneyCallOptions): Promise<T> {
    const key = options.idempotencyKey ?? this.newKey();
    for (let attempt = 0; ; attempt += 1) {
      let result: Result | null = null;
      try {
        result = await call(key);
      } catch (err) {
        if (attempt >= this.retries) throw err;
      }
      if (result) {
        const status = result.response?.status ?? 0;
        if (result.response?.ok && result.error === undefined) return result.data as T;
        const refused = errorFrom(status, result.error);
        // No answer at all (status 0: the connection failed) leaves the outcome open too.
        const open =
          status === 0 || RETRIED_STATUS.has(status) || refused.code === 'idempotency_key_in_flight';
        if (!open || attempt >= this.retries) throw refused;
      }
      const retryAfter = Number(result?.response?.headers.get('Retry-After') ?? '');
      const delay = retryAfter > 0 ? retryAfter * 1000 : this.retryDelayMs * 2 ** attempt;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  private keyed(key: string) {
    return { client: this.client, headers: { 'Idempotency-Key': key } };
  }

  /** Prices a basket; stores nothing. */
  priceBasket(basket: BasketRequest) {
    return unwrap<PricedBasket>(sdk.priceBasket({ client: this.client, body: basket }));
  }

  /** Places an order, signed over the exact bytes sent; a retry reuses the key and signs anew. */
  createOrder(order: OrderRequest, options: MoneyCallOptions = {}) {
    return this.once<Order>(
      (key) =>
        sdk.createOrder({
          client: this.client,
          // Timestamp and Security-Token are set when the request leaves, over the bytes it carries.
          headers: {
            'Idempotency-Key': key,
            Timestamp: SIGNED_WHEN_SENT,
            'Security-Token': SIGNED_WHEN_SENT,
          },
          body: order,
        }),
      options,
    );
  }

  /** Refunds the whole order (`{}`), an amount, or positions; each refund books once. */
  refundOrder(basketId: string, refund: RefundRequest = {}, options: MoneyCallOptions = {}) {
    return this.once<Refund>(
      (key) => sdk.refundOrder({ ...this.keyed(key), path: { basketId }, body: refund }),
      options,
    );
  }

  /** An order as stored, with its refunds. */
  readOrder(basketId: string) {
    return unwrap<PlacedOrder>(sdk.readOrder({ client: this.client, path: { basketId } }));
  }

  /** A profile's orders, newest first, page after page (createdFrom inclusive, createdTo exclusive). */
  orders(reference: string, filter: TimeFilter = {}): AsyncGenerator<PlacedOrder> {
    return pages<PlacedOrder>((cursor) =>
      unwrap<PlacedOrderPage>(
        sdk.listProfileOrders({ client: this.client, path: { reference }, query: { ...filter, ...cursor } }),
      ),
    );
  }

  /** A profile's balance transactions (top-ups, charges, refunds, reservations), page after page. */
  transactions(
    reference: string,
    filter: TimeFilter = {},
  ): AsyncGenerator<BalanceTransactionPage['data'][number]> {
    return pages((cursor) =>
      unwrap<BalanceTransactionPage>(
        sdk.listProfileTransactions({
          client: this.client,
          path: { reference },
          query: { ...filter, ...cursor },
        }),
      ),
    );
  }

  /** The deliveries of the merchant's webhooks with every attempt, page after page. */
  webhookDeliveries(
    filter: { webhookId?: string } = {},
  ): AsyncGenerator<WebhookDeliveryPage['data'][number]> {
    return pages((cursor) =>
      unwrap<WebhookDeliveryPage>(
        sdk.listWebhookDeliveries({ client: this.client, query: { ...filter, ...cursor } }),
      ),
    );
  }

  /** Sends a delivery again now. */
  redeliverWebhookDelivery(id: number) {
    return unwrap<unknown>(sdk.redeliverWebhookDelivery({ client: this.client, path: { id } }));
  }

  /** A profile by customer card id or live one-time password. */
  readProfile(reference: string) {
    return unwrap<CheckoutProfile>(sdk.readCheckoutProfile({ client: this.client, path: { reference } }));
  }

  topUp(reference: string, topUp: TopUpRequest, options: MoneyCallOptions = {}) {
    return this.once<TopUp>(
      (key) => sdk.createTopUp({ ...this.keyed(key), path: { reference }, body: topUp }),
      options,
    );
  }

  reserve(reference: string, reservation: ReservationRequest, options: MoneyCallOptions = {}) {
    return this.once<Reservation>(
      (key) => sdk.createReservation({ ...this.keyed(key), path: { reference }, body: reservation }),
      options,
    );
  }

  readReservation(reference: string) {
    return unwrap<Reservation>(sdk.readReservation({ client: this.client, path: { reference } }));
  }

  cancelReservation(reference: string, options: MoneyCallOptions = {}) {
    return this.once<Reservation>(
      (key) => sdk.cancelReservation({ ...this.keyed(key), path: { reference } }),
      options,
    );
  }

  createWebhook(webhook: WebhookRequest, options: MoneyCallOptions = {}) {
    return this.once<Webhook>((key) => sdk.createWebhook({ ...this.keyed(key), body: webhook }), options);
  }

  readWebhook(id: string) {
    return unwrap<Webhook>(sdk.readWebhook({ client: this.client, path: { id } }));
  }

  deleteWebhook(id: string) {
    return unwrap<unknown>(sdk.deleteWebhook({ client: this.client, path: { id } }));
  }

  /** Every webhook of the merchant, page after page. */
  webhooks(): AsyncGenerator<Webhook> {
    return pages((cursor) => unwrap<WebhookPage>(sdk.listWebhooks({ client: this.client, query: cursor })));
  }
}
