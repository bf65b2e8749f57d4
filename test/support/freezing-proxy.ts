import type { Socket } from 'node:net';
import { tcpProxy } from './tcp-proxy.js';

/**
 * A TCP proxy in front of a PostgreSQL server that can fall silent, as a network that drops every
 * packet for a while (a partition, a link down): frozen, it forwards nothing either way and closes
 * nothing, and takes new connections without answering them. Thawed, it delivers what it held, as
 * TCP does once the packets get through again, and opens what it took meanwhile. A connection its
 * client gave up while it was frozen is simply closed.
 */
export interface FreezingProxy {
  /** The server's URL with the proxy's address in its place. */
  readonly url: string;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function freezingProxy(serverUrl: string): Promise<FreezingProxy> {
  /** What each connection does once the proxy thaws: opens upstream, or sends what it held. */
  const onThaw = new Set<() => void>();
  let frozen = false;
  /** Writes `data` to `to`, or holds it until the proxy thaws. */
  const forward = (to: Socket, held: Buffer[]) => (data: Buffer) => {
    if (frozen) held.push(data);
    else to.write(data);
  };
  const proxy = await tcpProxy(serverUrl, (inbound, openUpstream) => {
    const fromClient: Buffer[] = [];
    const fromServer: Buffer[] = [];
    const open = () => {
      if (inbound.destroyed) return;
      const upstream = openUpstream();
      inbound.removeAllListeners('data');
      inbound.on('data', forward(upstream, fromClient));
      upstream.on('data', forward(inbound, fromServer));
      const flush = () => {
        for (const data of fromClient.splice(0)) upstream.write(data);
        for (const data of fromServer.splice(0)) inbound.write(data);
      };
      flush();
      onThaw.add(flush);
      upstream.on('close', () => onThaw.delete(flush));
    };
    if (!frozen) return open();
    // Taken while frozen: what the client sends is held until the connection opens.
    inbound.on('data', (data: Buffer) => fromClient.push(data));
    const later = () => {
      onThaw.delete(later);
      open();
    };
    onThaw.add(later);
    inbound.on('close', () => onThaw.delete(later));
  });
  return {
    url: proxy.url,
    freeze() {
      frozen = true;
    },
    thaw() {
      frozen = false;
      for (const run of [...onThaw]) run();
    },
    close: () => proxy.close(),
  };
}
