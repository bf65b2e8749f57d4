import { type AddressInfo, type Socket, connect, createServer } from 'node:net';

/**
 * A TCP proxy in front of a PostgreSQL server that can fall silent: frozen, it forwards nothing
 * either way and closes nothing, and takes new connections without ever answering them, as a
 * network that drops every packet (a partition, a host gone without a word). Thawed, the
 * connections it froze stay silent; new ones go through.
 */
export interface FreezingProxy {
  /** The server's URL with the proxy's address in its place. */
  readonly url: string;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function freezingProxy(serverUrl: string): Promise<FreezingProxy> {
  const target = new URL(serverUrl);
  const sockets = new Set<Socket>();
  let frozen = false;
  const keep = (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  };
  const server = createServer((inbound) => {
    keep(inbound);
    if (frozen) return;
    const upstream = connect(Number(target.port || 5432), target.hostname);
    keep(upstream);
    // Each connection forwards only while nothing was frozen since it opened.
    let live = true;
    const stop = () => (live = false);
    freezers.add(stop);
    inbound.on('data', (d) => live && upstream.write(d));
    upstream.on('data', (d) => live && inbound.write(d));
    inbound.on('close', () => upstream.destroy());
    upstream.on('close', () => inbound.destroy());
  });
  const freezers = new Set<() => void>();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(serverUrl);
  url.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: url.toString(),
    freeze() {
      frozen = true;
      for (const stop of freezers) stop();
      freezers.clear();
    },
    thaw() {
      frozen = false;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
