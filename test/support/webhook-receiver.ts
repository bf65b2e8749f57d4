import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { WebhookEvent } from '../../src/checkout/webhook-events.schemas.js';
import { TRAFFIC_DIR, jsonOrUndefined, recordTraffic } from './traffic.js';

/** Every delivery a test receives must match the event schema of the API document's webhooks. */
const matchesDocument = new Ajv2020({ strict: false, allErrors: true }).compile(WebhookEvent);

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on loopback: records every request; answers 500 to the first `failFirst` of them, then 204. */
export class Receiver {
  readonly received: Received[] = [];
  failFirst = 0;
  private server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      this.received.push({ headers: req.headers, body });
      this.checkAgainstDocument(body);
      if (TRAFFIC_DIR) {
        const event = jsonOrUndefined(body) as { type?: string } | undefined;
        recordTraffic([
          {
            kind: 'delivery',
            event: event?.type ?? '',
            headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
            body: event,
          },
        ]);
      }
      res.statusCode = this.received.length <= this.failFirst ? 500 : 204;
      res.end();
    });
  });
  url = '';
  /** Deliveries that the document's WebhookEvent schema does not describe. */
  readonly undocumented: string[] = [];
  private checkAgainstDocument(body: string): void {
    let event: unknown;
    try {
      event = JSON.parse(body);
    } catch {
      this.undocumented.push(`not JSON: ${body.slice(0, 200)}`);
      return;
    }
    if (!matchesDocument(event)) {
      this.undocumented.push(`${JSON.stringify(matchesDocument.errors)} in ${body.slice(0, 300)}`);
    }
  }
  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }
  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (this.undocumented.length > 0) {
      throw new Error(
        `Webhook deliveries the API document does not describe:\n${this.undocumented.join('\n')}`,
      );
    }
  }
  /** Waits for `n` requests; the app's clock moves on meanwhile, so retries fall due. */
  async waitFor(n: number, clock: { advance(ms: number): void }, ms = 10_000): Promise<Received[]> {
    const end = Date.now() + ms;
    while (this.received.length < n && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 20));
      clock.advance(20);
    }
    return this.received;
  }
}
