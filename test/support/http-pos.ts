import { createHash } from 'node:crypto';
import { Pool } from 'undici';

/**
 * A POS and operator client over real HTTP (keep-alive connections), for the concurrency tests
 * and the benchmarks. It imports nothing of the test runner, so the benchmarks can use it too.
 */
export interface HttpAnswer {
  status: number;
  body: unknown;
}

export interface PosIdentity {
  devKey: string;
  trackingUnitId: string;
  checksumSecret: string;
  serviceUserName: string;
}

function md5(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}

export class HttpClient {
  private readonly pool: Pool;

  constructor(
    readonly baseUrl: string,
    readonly adminToken: string,
    connections = 20,
  ) {
    this.pool = new Pool(baseUrl, { connections, pipelining: 1 });
  }

  async call(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<HttpAnswer> {
    const res = await this.pool.request({
      method: method as 'POST',
      path,
      headers: {
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.body.text();
    return { status: res.statusCode, body: text === '' ? null : (JSON.parse(text) as unknown) };
  }

  /** A call with a body sent as it is, answering the text and the headers. */
  async raw(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: string,
  ): Promise<{ status: number; text: string; headers: Record<string, string | string[] | undefined> }> {
    const res = await this.pool.request({
      method: method as 'POST',
      path,
      headers: { accept: 'application/json', ...headers },
      ...(body === undefined ? {} : { body }),
    });
    return { status: res.statusCode, text: await res.body.text(), headers: res.headers };
  }

  admin(method: string, path: string, body?: unknown): Promise<HttpAnswer> {
    return this.call(method, `/api/admin/v1${path}`, { authorization: `Bearer ${this.adminToken}` }, body);
  }

  pos(
    who: PosIdentity,
    method: string,
    path: string,
    options: { query?: Record<string, string>; sign?: string; body?: unknown } = {},
  ): Promise<HttpAnswer> {
    const headers: Record<string, string> = { devkey: who.devKey, trackingunitid: who.trackingUnitId };
    if (options.sign !== undefined)
      headers.securitytoken = md5(`${options.sign}qPnsS14${who.checksumSecret}`);
    const query = options.query ? `?${new URLSearchParams(options.query).toString()}` : '';
    return this.call(method, `/api/pos/v3${path}${query}`, headers, options.body);
  }

  withdraw(who: PosIdentity, tokenId: string, amount: string, transactionId?: string): Promise<HttpAnswer> {
    return this.pos(who, 'POST', `/tokens/${encodeURIComponent(tokenId)}/withdrawBalance`, {
      query: { balanceToWithdraw: amount, ...(transactionId ? { transactionId } : {}) },
      sign: `${tokenId}${amount}`,
    });
  }

  add(who: PosIdentity, tokenId: string, amount: string): Promise<HttpAnswer> {
    return this.pos(who, 'POST', `/tokens/${encodeURIComponent(tokenId)}/addBalance`, {
      query: { balanceToAdd: amount },
      sign: `${tokenId}${amount}`,
    });
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

function expectStatus(answer: HttpAnswer, status: number, what: string): void {
  if (answer.status !== status)
    throw new Error(`${what}: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
}

/** A merchant with a brand, an outlet and an activated terminal, set up through HTTP only. */
export async function setupTerminalHttp(client: HttpClient, serviceUserName: string): Promise<PosIdentity> {
  const dk = await client.admin('POST', '/devKeys', { name: 'Till vendor' });
  expectStatus(dk, 201, 'devKey');
  const devKey = (dk.body as { devKey: string }).devKey;
  expectStatus(
    await client.admin('POST', '/merchants', {
      serviceUserName,
      displayName: serviceUserName,
      currency: 'EUR',
    }),
    201,
    'merchant',
  );
  const brand = await client.admin('POST', `/merchants/${encodeURIComponent(serviceUserName)}/brands`, {
    name: 'Brand',
  });
  const brandId = (brand.body as { brandId: number }).brandId;
  const outlet = await client.call(
    'POST',
    `/api/pos/v3/merchants/${encodeURIComponent(serviceUserName)}/outlets?brandId=${brandId}`,
    { devkey: devKey },
    { Name: 'Main street' },
  );
  const outletId = (outlet.body as { Id: number }).Id;
  const reg = await client.call(
    'GET',
    `/api/pos/v3/trackingUnits?serviceUserName=${encodeURIComponent(serviceUserName)}&outletId=${outletId}&instanceName=Bench`,
    { devkey: devKey },
  );
  expectStatus(reg, 200, 'register unit');
  const { trackingUnitId, checksumSecret } = reg.body as { trackingUnitId: string; checksumSecret: string };
  expectStatus(await client.admin('POST', `/trackingUnits/${trackingUnitId}/activate`), 200, 'activate');
  return { devKey, trackingUnitId, checksumSecret, serviceUserName };
}
