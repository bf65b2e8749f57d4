import { appendFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The tests' traffic, written down for the reference's examples when PUNCHCARD_TRAFFIC_DIR is set
 * (`npm run docs:examples` sets it; scripts/api-examples.ts reads what it wrote). One JSON line per
 * exchange: the route, the JSON request body, the status, the answer's headers and JSON body; and
 * one per webhook delivery a test received.
 */

export const TRAFFIC_DIR = process.env.PUNCHCARD_TRAFFIC_DIR
  ? resolve(process.env.PUNCHCARD_TRAFFIC_DIR)
  : null;

export interface TrafficExchange {
  kind: 'exchange';
  method: string;
  route: string;
  status: number;
  requestBody?: unknown;
  headers: Record<string, string>;
  body?: unknown;
}

export interface TrafficDelivery {
  kind: 'delivery';
  event: string;
  headers: Record<string, string>;
  body: unknown;
}

const file = TRAFFIC_DIR ? join(TRAFFIC_DIR, `traffic-${process.pid}-${Date.now()}.jsonl`) : null;

export function recordTraffic(entries: readonly (TrafficExchange | TrafficDelivery)[]): void {
  if (!file || !TRAFFIC_DIR || entries.length === 0) return;
  mkdirSync(TRAFFIC_DIR, { recursive: true });
  appendFileSync(file, entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
}

/** A JSON text as a value, or undefined when it is none. */
export function jsonOrUndefined(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
