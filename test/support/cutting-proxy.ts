import { type AddressInfo, type Socket, connect, createServer } from 'node:net';

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
  const target = new URL(serverUrl);
  const sockets = new Set<Socket>();
  const marker = Buffer.from(statement);
  let cut = 0;
  const keep = (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  };
  const server = createServer((inbound) => {
    keep(inbound);
    const upstream = connect(Number(target.port || 5432), target.hostname);
    keep(upstream);
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
    inbound.on('close', () => upstream.destroy());
    upstream.on('close', () => inbound.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(serverUrl);
  url.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: url.toString(),
    cut: () => cut,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
