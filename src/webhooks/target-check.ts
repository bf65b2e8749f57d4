import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Webhook targets (docs/decisions.md, "Checkout v1: webhooks"): http(s) only, and no address of
 * the service's own networks (loopback, private, link-local, carrier-grade NAT, unspecified,
 * multicast, IPv6 unique-local), checked at registration and again before every delivery, unless
 * WEBHOOK_ALLOW_PRIVATE=true. Every address the name resolves to must be public.
 */

const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const) {
  blocked.addSubnet(net, bits, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped?.[1]) return blocked.check(mapped[1], 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return true;
}

export type TargetCheck = { ok: true; url: URL } | { ok: false; reason: string };

export async function checkWebhookTarget(text: string, allowPrivate: boolean): Promise<TargetCheck> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'not a URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: 'not http(s)' };
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'credentials in the URL' };
  if (allowPrivate) return { ok: true, url };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      return { ok: false, reason: `${host} does not resolve` };
    }
  }
  if (addresses.length === 0) return { ok: false, reason: `${host} does not resolve` };
  const bad = addresses.find(isPrivateAddress);
  if (bad !== undefined)
    return { ok: false, reason: `${host} resolves to ${bad}, a private or loopback address` };
  return { ok: true, url };
}
