import { tcpProxy } from './tcp-proxy.js';

/**
 * A TCP proxy in front of a PostgreSQL server that ends a connection the moment its client sends
 * a given statement, as the server ending the session (`pg_terminate_backend`, a restart) or the
 * network dropping it would: the statement is not forwarded, both sides are closed. It does so for
 * the first `times` connections that send it; every other byte passes as sent.
 */
export interface CuttingProxy {
  /** The server's URL with the proxy's address in its place. */
  readonly url: string;
  /** How many connections it has ended so far. */
  cut(): number;
  close(): Promise<void>;
}

export async function cuttingProxy(
  serverUrl: string,
  statement: string,
  times: number,
): Promise<CuttingProxy> {
  const marker = Buffer.from(statement);
  let cut = 0;
  const proxy = await tcpProxy(serverUrl, (inbound, openUpstream) => {
    const upstream = openUpstream();
    inbound.on('data', (data: Buffer) => {
      if (cut < times && data.includes(marker)) {
        cut += 1;
        inbound.destroy();
        upstream.destroy();
        return;
      }
      upstream.write(data);
    });
    upstream.on('data', (data: Buffer) => inbound.write(data));
  });
  return { url: proxy.url, cut: () => cut, close: () => proxy.close() };
}
