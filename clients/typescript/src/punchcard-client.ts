import { gzipSync } from 'node:zlib';
import { type Client, createClient, createConfig } from './generated/client/index.js';
import * as sdk from './generated/sdk.gen.js';
import type {
  Basket,
  BasketResponse,
  CreateOutletRequest,
  GrantResponse,
  Return,
  ReturnResponse,
  Token,
  TokenBalance,
} from './generated/types.gen.js';
import { unwrap } from './client-errors.js';
import { securityToken, securityTokenV2, transactionTokenInput } from './signing.js';

export { PunchcardError } from './client-errors.js';
export { securityToken } from './signing.js';
export { sdk };

/** The answer format a till asks for: JSON (parsed and typed) or XML (the document's text). */
export type WireFormat = 'json' | 'xml';

/** Marks a request for the V2 signature; the request interceptor replaces it with the signature. */
const V2_PENDING = 'pending';

/**
 * The last step before a request leaves: SecurityToken-V2 over the exact bytes of the body, then
 * gzip (the signature covers the body before Content-Encoding).
 */
function finishRequests(
  client: Client,
  options: { gzip: boolean; checksumSecret?: string; clock: () => number },
) {
  const sent = new Set<string>();
  client.interceptors.request.use(async (request) => {
    const signV2 = request.headers.get('SecurityToken-V2') === V2_PENDING;
    if (!signV2 && !options.gzip) return request;
    const raw = request.body === null ? null : new Uint8Array(await request.arrayBuffer());
    const headers = new Headers(request.headers);
    if (signV2) {
      if (options.checksumSecret === undefined) throw new Error('SecurityToken-V2 needs the terminal.');
      const url = new URL(request.url);
      const sign = (unixSeconds: number) =>
        securityTokenV2(options.checksumSecret ?? '', {
          method: request.method,
          pathWithQuery: url.pathname + url.search,
          ...(raw ? { body: raw } : {}),
          unixSeconds,
        });
      // The service accepts a signature once: the same request again within the same second (a
      // retry of a booking with its transactionId) is signed with the next second instead.
      let seconds = Math.max(Math.floor(options.clock() / 1000), 0);
      let token = sign(seconds);
      while (sent.has(token)) token = sign(++seconds);
      sent.add(token);
      if (sent.size > 1000) sent.delete(sent.values().next().value ?? '');
      headers.set('SecurityToken-V2', token);
    }
    let body: Uint8Array | null = raw;
    if (raw && options.gzip) {
      headers.set('Content-Encoding', 'gzip');
      body = gzipSync(raw);
    }
    return new Request(request.url, { method: request.method, headers, body });
  });
}

export interface Terminal {
  trackingUnitId: string;
  checksumSecret: string;
}

export interface PosClientOptions {
  baseUrl: string;
  devKey: string;
  /** The terminal, once registered: needed by every call but merchant info, outlets and registration. */
  terminal?: Terminal;
  /** Answer format; JSON by default. Request bodies are sent as JSON either way. */
  format?: WireFormat;
  /** Compress request bodies with gzip. */
  gzip?: boolean;
  /**
   * How value-moving calls are signed: `md5` (the SecurityToken header, the default) or `v2`
   * (SecurityToken-V2 over the whole request, required for terminals the operator switched to it).
   */
  signing?: 'md5' | 'v2';
  /**
   * The merchant requires transactionIds: the MD5 token of addBalance and withdrawBalance covers
   * the operation, the card, the amount and the transactionId.
   */
  transactionIdTokens?: boolean;
  /** The clock for SecurityToken-V2 timestamps, in milliseconds (default Date.now). */
  clock?: () => number;
  /** The fetch to send with (a proxy, a custom agent, a recorder in tests). */
  fetch?: typeof fetch;
}

/** An answer: the typed JSON value, or the XML document's text when the client asks for XML. */
export type Answer<F extends WireFormat, T> = F extends 'xml' ? string : T;

/** The POS interface v3 for a till: credentials, SecurityTokens, answer format and gzip handled here. */
export class PosClient<F extends WireFormat = 'json'> {
  readonly client: Client;
  readonly format: WireFormat;

  constructor(readonly options: PosClientOptions & { format?: F }) {
    this.format = options.format ?? 'json';
    const headers = { DevKey: options.devKey, trackingUnitId: options.terminal?.trackingUnitId };
    this.client = createClient(
      createConfig({
        baseUrl: options.baseUrl,
        // Every call asks for the client's format, also the generated functions given this client.
        headers: { Accept: this.format === 'xml' ? 'application/xml' : 'application/json' },
        auth: (scheme) => headers[scheme.name as keyof typeof headers],
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
    );
    finishRequests(this.client, {
      gzip: options.gzip === true,
      ...(options.terminal ? { checksumSecret: options.terminal.checksumSecret } : {}),
      clock: options.clock ?? Date.now,
    });
  }

  /** The same client for a registered terminal. */
  forTerminal(terminal: Terminal): PosClient<F> {
    return new PosClient<F>({ ...this.options, terminal });
  }

  private get accept(): 'application/json' | 'application/xml' {
    return this.format === 'xml' ? 'application/xml' : 'application/json';
  }

  private common() {
    return {
      client: this.client,
      headers: { Accept: this.accept },
      parseAs: this.format === 'xml' ? ('text' as const) : ('json' as const),
    };
  }

  /** Per-call credentials with the SecurityToken over `input`, or the V2 signature of the request. */
  private signed(input: string) {
    const { devKey, terminal, signing } = this.options;
    if (terminal === undefined) throw new Error('A SecurityToken needs the terminal (register it first).');
    const v2 = signing === 'v2';
    const token = v2 ? undefined : securityToken(input, terminal.checksumSecret);
    return {
      ...this.common(),
      headers: { Accept: this.accept, ...(v2 ? { 'SecurityToken-V2': V2_PENDING } : {}) },
      auth: (scheme: { name?: string }) =>
        scheme.name === 'SecurityToken'
          ? token
          : scheme.name === 'DevKey'
            ? devKey
            : scheme.name === 'trackingUnitId'
              ? terminal.trackingUnitId
              : undefined,
    };
  }

  private balanceInput(
    operation: 'addBalance' | 'withdrawBalance',
    id: string,
    amount: string,
    transactionId?: string,
  ): string {
    if (!this.options.transactionIdTokens) return id + amount;
    if (transactionId === undefined) throw new Error('This merchant requires a transactionId.');
    return transactionTokenInput(operation, id, amount, transactionId);
  }

  createOutlet(serviceUserName: string, brandId: number, outlet: CreateOutletRequest = {}) {
    return unwrap<Answer<F, { Id: number; Name: string }>>(
      sdk.createOutlet({ ...this.common(), path: { serviceUserName }, query: { brandId }, body: outlet }),
    );
  }

  /** Registers a new terminal (each call makes another one); answers JSON whatever the format. */
  async registerTerminal(query: {
    serviceUserName: string;
    outletId: number;
    instanceName: string;
    sortimentId?: number;
  }): Promise<Terminal> {
    return unwrap<Terminal>(
      sdk.registerTrackingUnit({ client: this.client, headers: { Accept: 'application/json' }, query }),
    );
  }

  uploadBasket(
    basketId: string,
    basket: Basket,
    query: { consumerIdentToken?: string; giftCardId?: string } = {},
  ) {
    return unwrap<Answer<F, BasketResponse>>(
      sdk.uploadBasket({ ...this.common(), path: { basketId }, query, body: basket }),
    );
  }

  grantBasket(basketId: string, redeemedInPos = true) {
    return unwrap<Answer<F, GrantResponse>>(
      sdk.grantBasket({ ...this.signed(basketId), path: { basketId }, query: { redeemedInPos } }),
    );
  }

  returnBasket(basketId: string, body: Return) {
    return unwrap<Answer<F, ReturnResponse>>(
      sdk.returnBasket({ ...this.signed(basketId + body.ReturnId), path: { basketId }, body }),
    );
  }

  registerToken(id: string, tokentype: 'customer' | 'gift' = 'customer') {
    return unwrap<Answer<F, Token>>(
      sdk.registerToken({ ...this.common(), path: { id }, query: { tokentype } }),
    );
  }

  /** balance: the decimal text as sent in the URL (it is part of the SecurityToken). */
  addBalance(id: string, balance: string, transactionId?: string) {
    return unwrap<Answer<F, TokenBalance>>(
      sdk.addTokenBalance({
        ...this.signed(this.balanceInput('addBalance', id, balance, transactionId)),
        path: { id },
        query: { balanceToAdd: balance, ...(transactionId ? { transactionId } : {}) },
      }),
    );
  }

  withdrawBalance(id: string, balance: string, transactionId?: string) {
    return unwrap<Answer<F, TokenBalance>>(
      sdk.withdrawTokenBalance({
        ...this.signed(this.balanceInput('withdrawBalance', id, balance, transactionId)),
        path: { id },
        query: { balanceToWithdraw: balance, ...(transactionId ? { transactionId } : {}) },
      }),
    );
  }
}
