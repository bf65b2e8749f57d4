import { type AddressInfo, type Socket, connect, createServer } from 'node:net';

/** A TCP proxy on 127.0.0.1 in front of a PostgreSQL server (freezing-proxy.ts, cutting-proxy.ts). */
export interface TcpProxy {
  /** The server's URL with the proxy's address in its place. */
  readonly url: string;
  /** Closes every connection it holds, both sides, and stops taking new ones. */
  close(): Promise<void>;
}

/**
 * Listens in front of the server `serverUrl` names and hands each connection a client opens to
 * `serve`, with a function that opens a connection to the server, which ends with the client's
 * (either side closing closes the other); `serve` decides what passes. Every socket of both sides
 * is kept until it closes, so that `close` ends them all.
 */
export async function tcpProxy(
  serverUrl: string,
  serve: (inbound: Socket, openUpstream: () => Socket) => void,
): Promise<TcpProxy> {
  const target = new URL(serverUrl);
  const sockets = new Set<Socket>();
  const keep = (socket: Socket): Socket => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    return socket;
  };
  const server = createServer((inbound) => {
    keep(inbound);
    serve(inbound, () => {
      const upstream = keep(connect(Number(target.port || 5432), target.hostname));
      inbound.on('close', () => upstream.destroy());
      upstream.on('close', () => inbound.destroy());
      return upstream;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(serverUrl);
  url.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: url.toString(),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
