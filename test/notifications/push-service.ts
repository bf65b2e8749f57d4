import { createDecipheriv, createECDH, createHmac, createPublicKey, randomBytes, verify } from 'node:crypto';
import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A push service for the tests, written from the specifications: it accepts what a push service
 * accepts (RFC 8030 POST to the subscription's endpoint), checks the VAPID authorisation (RFC
 * 8292: an ES256 JWT for the endpoint's origin, signed by the key in `k=`) and decrypts the
 * payload with the subscription's private key and auth secret (RFC 8291, aes128gcm of RFC 8188).
 */
export interface ReceivedPush {
  readonly path: string;
  readonly plaintext: string;
  readonly vapidSubject: string;
  readonly vapidKey: string;
}

export interface PushService {
  readonly url: string;
  readonly received: ReceivedPush[];
  readonly failures: string[];
  /** A new subscription: the endpoint and the keys a browser would hand over. */
  subscribe(): { endpoint: string; keys: { p256dh: string; auth: string } };
  close(): Promise<void>;
}

const hmac = (key: Buffer, data: Buffer) => createHmac('sha256', key).update(data).digest();

function decrypt(body: Buffer, uaPrivate: ReturnType<typeof createECDH>, auth: Buffer): string {
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body[20] ?? 0;
  const asPublic = body.subarray(21, 21 + idlen);
  const ciphertext = body.subarray(21 + idlen);
  if (ciphertext.length > rs) throw new Error('more than one record');
  const uaPublic = uaPrivate.getPublicKey();
  const ecdhSecret = uaPrivate.computeSecret(asPublic);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic]);
  const ikm = hmac(hmac(auth, ecdhSecret), Buffer.concat([keyInfo, Buffer.from([1])]));
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, Buffer.from('Content-Encoding: aes128gcm\0\x01', 'binary')).subarray(0, 16);
  const nonce = hmac(prk, Buffer.from('Content-Encoding: nonce\0\x01', 'binary')).subarray(0, 12);
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([
    decipher.update(ciphertext.subarray(0, ciphertext.length - 16)),
    decipher.final(),
  ]);
  // The last record ends with the delimiter 0x02 followed by zero padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end -= 1;
  if (padded[end] !== 2) throw new Error('no last-record delimiter');
  return padded.subarray(0, end).toString('utf8');
}

function checkVapid(headers: IncomingHttpHeaders, origin: string): { sub: string; key: string } {
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(String(headers.authorization ?? ''));
  if (!m) throw new Error(`no VAPID authorization: ${String(headers.authorization)}`);
  const [header, payload, signature] = (m[1] ?? '').split('.');
  const key = Buffer.from(m[2] ?? '', 'base64url');
  const jwk = {
    kty: 'EC',
    crv: 'P-256',
    x: key.subarray(1, 33).toString('base64url'),
    y: key.subarray(33, 65).toString('base64url'),
  };
  const ok = verify(
    'sha256',
    Buffer.from(`${header}.${payload}`),
    { key: createPublicKey({ key: jwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature ?? '', 'base64url'),
  );
  if (!ok) throw new Error('VAPID signature does not verify');
  const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8')) as {
    aud: string;
    sub: string;
    exp: number;
  };
  if (claims.aud !== origin) throw new Error(`VAPID aud ${claims.aud} is not ${origin}`);
  if (claims.exp * 1000 < Date.now()) throw new Error('VAPID token expired');
  return { sub: claims.sub, key: m[2] ?? '' };
}

export async function startPushService(): Promise<PushService> {
  const subscriptions = new Map<string, { ecdh: ReturnType<typeof createECDH>; auth: Buffer }>();
  const received: ReceivedPush[] = [];
  const failures: string[] = [];
  let origin = '';
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const sub = subscriptions.get(req.url ?? '');
        if (!sub || req.method !== 'POST') {
          res.writeHead(404).end();
          return;
        }
        if (req.headers['content-encoding'] !== 'aes128gcm') throw new Error('not aes128gcm');
        if (!req.headers.ttl) throw new Error('no TTL');
        const vapid = checkVapid(req.headers, origin);
        const plaintext = decrypt(Buffer.concat(chunks), sub.ecdh, sub.auth);
        received.push({ path: req.url ?? '', plaintext, vapidSubject: vapid.sub, vapidKey: vapid.key });
        res.writeHead(201).end();
      } catch (err) {
        failures.push(err instanceof Error ? err.message : String(err));
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return {
    url: origin,
    received,
    failures,
    subscribe() {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = randomBytes(16);
      const path = `/push/${randomBytes(8).toString('hex')}`;
      subscriptions.set(path, { ecdh, auth });
      return {
        endpoint: `${origin}${path}`,
        keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
      };
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
