import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { type Client, createClient, createConfig } from './generated/client/index.js';
import * as sdk from './generated/sdk.gen.js';
import type {
  Basket,
  BasketResponse,
  CreateCampaignRequest,
  CreateLoyaltySchemeRequest,
  CreateMerchantRequest,
  CreateOutletRequest,
  CreateProfileRequest,
  GrantResponse,
  LinkProfileTokenRequest,
  Return,
  ReturnResponse,
  Token,
  TokenBalance,
} from './generated/types.gen.js';

export * from './generated/index.js';
export { sdk };

/** The answer format a till asks for: JSON (parsed and typed) or XML (the document's text). */
export type WireFormat = 'json' | 'xml';

/** SecurityToken of the POS interface: lower-case hex MD5 of input + "qPnsS14" + checksumSecret. */
export function securityToken(input: string, checksumSecret: string): string {
  return createHash('md5').update(`${input}qPnsS14${checksumSecret}`, 'utf8').digest('hex');
}

/** A refused call: the HTTP status with the ErrorId (POS) or code (operator API) of the catalog. */
export class PunchcardError extends Error {
  constructor(
    readonly status: number,
    readonly errorId: number | null,
    readonly code: string | null,
    readonly body: string,
  ) {
    super(
      `HTTP ${status}${errorId !== null ? ` ErrorId ${errorId}` : ''}${code ? ` ${code}` : ''}: ${body.slice(0, 300)}`,
    );
    this.name = 'PunchcardError';
  }

  /** The catalog's name for the error: the ErrorId, the code, or the HTTP status. */
  get key(): string {
    return this.errorId !== null ? String(this.errorId) : (this.code ?? `HTTP ${this.status}`);
  }
}

function errorFrom(status: number, error: unknown): PunchcardError {
  const body = typeof error === 'string' ? error : JSON.stringify(error ?? null);
  let errorId: number | null = null;
  let code: string | null = null;
  if (typeof error === 'object' && error !== null) {
    const e = error as { ErrorId?: unknown; error?: { code?: unknown } };
    if (typeof e.ErrorId === 'number') errorId = e.ErrorId;
    if (typeof e.error?.code === 'string') code = e.error.code;
  } else {
    const m = /<ErrorId>(\d+)<\/ErrorId>/.exec(body) ?? /"ErrorId"\s*:\s*(\d+)/.exec(body);
    if (m?.[1]) errorId = Number(m[1]);
  }
  return new PunchcardError(status, errorId, code, body);
}

type Result = { data?: unknown; error?: unknown; response?: Response };

async function unwrap<T>(call: Promise<Result>): Promise<T> {
  const result = await call;
  const status = result.response?.status ?? 0;
  if (result.error !== undefined || !result.response?.ok) throw errorFrom(status, result.error);
  return result.data as T;
}

/** Request bodies compressed with gzip before they leave (the service counts the decompressed size). */
function gzipBodies(client: Client): void {
  client.interceptors.request.use(async (request) => {
    if (request.body === null) return request;
    const raw = new Uint8Array(await request.arrayBuffer());
    const headers = new Headers(request.headers);
    headers.set('Content-Encoding', 'gzip');
    return new Request(request.url, { method: request.method, headers, body: gzipSync(raw) });
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
        auth: (scheme) => headers[scheme.name as keyof typeof headers],
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
    );
    if (options.gzip) gzipBodies(this.client);
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

  /** Per-call credentials including the SecurityToken over `input`. */
  private signed(input: string) {
    const secret = this.options.terminal?.checksumSecret;
    if (secret === undefined) throw new Error('A SecurityToken needs the terminal (register it first).');
    const token = securityToken(input, secret);
    const { devKey, terminal } = this.options;
    return {
      ...this.common(),
      auth: (scheme: { name?: string }) =>
        scheme.name === 'SecurityToken'
          ? token
          : scheme.name === 'DevKey'
            ? devKey
            : scheme.name === 'trackingUnitId'
              ? terminal?.trackingUnitId
              : undefined,
    };
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
        ...this.signed(id + balance),
        path: { id },
        query: { balanceToAdd: balance, ...(transactionId ? { transactionId } : {}) },
      }),
    );
  }

  withdrawBalance(id: string, balance: string, transactionId?: string) {
    return unwrap<Answer<F, TokenBalance>>(
      sdk.withdrawTokenBalance({
        ...this.signed(id + balance),
        path: { id },
        query: { balanceToWithdraw: balance, ...(transactionId ? { transactionId } : {}) },
      }),
    );
  }
}

/** The operator API (`Authorization: Bearer <ADMIN_TOKEN>`). */
export class AdminClient {
  readonly client: Client;

  constructor(options: { baseUrl: string; token: string }) {
    this.client = createClient(createConfig({ baseUrl: options.baseUrl, auth: options.token }));
  }

  createDevKey(name: string) {
    return unwrap<{ devKey: string; name: string }>(
      sdk.createDevKey({ client: this.client, body: { name } }),
    );
  }

  createMerchant(merchant: CreateMerchantRequest) {
    return unwrap<{ serviceUserName: string }>(sdk.createMerchant({ client: this.client, body: merchant }));
  }

  createBrand(serviceUserName: string, name: string) {
    return unwrap<{ brandId: number; brandName: string }>(
      sdk.createBrand({ client: this.client, path: { serviceUserName }, body: { name } }),
    );
  }

  listTerminals(serviceUserName: string) {
    return unwrap<unknown[]>(sdk.listTrackingUnits({ client: this.client, path: { serviceUserName } }));
  }

  activateTerminal(trackingUnitId: string) {
    return unwrap<{ trackingUnitId: string; activated: boolean }>(
      sdk.activateTrackingUnit({ client: this.client, path: { trackingUnitId } }),
    );
  }

  createCampaign(serviceUserName: string, campaign: CreateCampaignRequest) {
    return unwrap<{ id: number; version: number }>(
      sdk.createCampaign({ client: this.client, path: { serviceUserName }, body: campaign }),
    );
  }

  createLoyaltyScheme(serviceUserName: string, scheme: CreateLoyaltySchemeRequest) {
    return unwrap<{ id: number; version: number }>(
      sdk.createLoyaltyScheme({ client: this.client, path: { serviceUserName }, body: scheme }),
    );
  }

  createProfile(serviceUserName: string, profile: CreateProfileRequest) {
    return unwrap<{ id: number }>(
      sdk.createProfile({ client: this.client, path: { serviceUserName }, body: profile }),
    );
  }

  linkCard(profileId: number, card: LinkProfileTokenRequest) {
    return unwrap<unknown>(
      sdk.linkProfileToken({ client: this.client, path: { id: profileId }, body: card }),
    );
  }

  readProfile(profileId: number) {
    return unwrap<unknown>(sdk.readProfile({ client: this.client, path: { id: profileId } }));
  }
}
