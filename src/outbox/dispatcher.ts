import type { Kysely } from 'kysely';
import type { Clock } from '../shared/clock.js';
import type { DB } from '../store/schema.js';
import { type OutboxMessage, claimDueMessages, recordAttempt } from './outbox.store.js';

/**
 * The dispatcher (docs/decisions.md "Outbox and dispatcher"): sends what the outbox holds, at
 * least once. Each server process runs one; they share the work through row locks that skip
 * locked rows, and a lease makes the claim of a process killed mid-send run out so the message is
 * sent after all.
 */

export type DeliveryOutcome =
  | { readonly ok: true; readonly detail?: Record<string, unknown> }
  | {
      readonly ok: false;
      readonly error: string;
      /** No later attempt can succeed (the target is refused, the data is gone): give up now. */
      readonly permanent?: boolean;
      readonly detail?: Record<string, unknown>;
    };

export interface OutboxHandler {
  readonly topic: string;
  /** Delays before the 2nd, 3rd, ... attempt, in ms; when used up the message is given up. */
  readonly retryScheduleMs?: readonly number[];
  /**
   * Sends one message. `stop` aborts when the process stops and the send outlived the stop's
   * grace: the send is to end at once (`sendSignal`: fetch and nodemailer take the signal).
   */
  deliver(message: OutboxMessage, stop: AbortSignal): Promise<DeliveryOutcome>;
}

/** What a process logs of its deliveries (pino's shape). */
export interface DispatcherLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * About three days: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 24 h (the Standard Webhooks
 * schedule, stretched to three days).
 */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000, 86_400_000,
];

export interface DispatcherOptions {
  readonly db: Kysely<DB>;
  readonly clock: Clock;
  readonly handlers: readonly OutboxHandler[];
  /** How often an idle dispatcher looks for due messages. */
  readonly pollMs?: number;
  /** Messages claimed (and sent concurrently) at a time. */
  readonly batchSize?: number;
  /** How long a claim holds; a send that takes longer may be repeated by another process. */
  readonly leaseMs?: number;
  /** Overrides every handler's schedule (tests use a short one). */
  readonly retryScheduleMs?: readonly number[] | null;
  /** How long a stop waits for the sends in flight before it cuts them off. */
  readonly stopGraceMs?: number;
}

/**
 * A stop waits this long for the sends in flight, then cuts them off: well inside the 30 s the
 * server gives its whole shutdown, which the 30 s a mail may take would otherwise use up.
 */
export const STOP_GRACE_MS = 5_000;

export class OutboxDispatcher {
  private readonly handlers = new Map<string, OutboxHandler>();
  private readonly pollMs: number;
  private readonly batchSize: number;
  private readonly leaseMs: number;
  private readonly stopGraceMs: number;
  private stopping = new AbortController();
  private log: DispatcherLog | null = null;
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private nudged = false;

  constructor(private readonly options: DispatcherOptions) {
    for (const h of options.handlers) this.register(h);
    this.pollMs = options.pollMs ?? 1000;
    this.batchSize = options.batchSize ?? 16;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.stopGraceMs = options.stopGraceMs ?? STOP_GRACE_MS;
  }

  /** Adds the handler of a topic; one handler per topic. */
  register(handler: OutboxHandler): void {
    if (this.handlers.has(handler.topic))
      throw new Error(`outbox topic ${handler.topic} has a handler already`);
    this.handlers.set(handler.topic, handler);
  }

  get topics(): string[] {
    return [...this.handlers.keys()];
  }

  /** Starts the loop of this process. Nothing to do without handlers. */
  start(log: DispatcherLog): void {
    if (this.running || this.handlers.size === 0) return;
    this.log = log;
    this.running = true;
    this.stopping = new AbortController();
    this.loop = this.run();
  }

  /** Look now: a transaction that enqueued something has committed. */
  nudge(): void {
    this.nudged = true;
    this.wake?.();
  }

  /**
   * Stops the loop after the deliveries in flight, cutting off those still running after the
   * grace. A send cut off is recorded as such and due again at once (`deliverOne`).
   */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    const loop = this.loop;
    if (loop !== null) {
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<'grace over'>((resolve) => {
        timer = setTimeout(() => resolve('grace over'), this.stopGraceMs);
      });
      if ((await Promise.race([loop, graceOver])) === 'grace over') {
        this.log?.warn({ graceMs: this.stopGraceMs }, 'outbox: cutting off the sends in flight to stop');
        this.stopping.abort();
        await loop;
      }
      clearTimeout(timer);
    }
    this.loop = null;
  }

  /** Claims one batch of due messages, sends them and records the outcomes; answers how many. */
  async runOnce(): Promise<number> {
    const now = new Date(this.options.clock.nowMs());
    const batch = await claimDueMessages(this.options.db, this.topics, now, this.leaseMs, this.batchSize);
    await Promise.all(batch.map((m) => this.deliverOne(m)));
    return batch.length;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let sent = 0;
      try {
        this.nudged = false;
        sent = await this.runOnce();
      } catch (err) {
        this.log?.error({ err }, 'outbox: claiming due messages failed; trying again');
      }
      // A full batch: more may be due at once. Otherwise wait for the poll or a nudge.
      if (sent === this.batchSize || this.nudged || !this.running) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, this.pollMs);
        function done(): void {
          clearTimeout(timer);
          resolve();
        }
        this.wake = done;
      });
      this.wake = null;
    }
  }

  private schedule(handler: OutboxHandler): readonly number[] {
    return this.options.retryScheduleMs ?? handler.retryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS;
  }

  private async deliverOne(message: OutboxMessage): Promise<void> {
    const handler = this.handlers.get(message.topic);
    if (handler === undefined) return;
    const startedAt = new Date(this.options.clock.nowMs());
    const signal = this.stopping.signal;
    let outcome: DeliveryOutcome;
    try {
      outcome = await handler.deliver(message, signal);
    } catch (err) {
      outcome = { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
    const finishedAt = new Date(this.options.clock.nowMs());
    // A send the stop cut off did not fail at the target: due again at once, never given up for it.
    const cutOff = !outcome.ok && outcome.permanent !== true && signal.aborted;
    if (cutOff && !outcome.ok)
      outcome = { ...outcome, error: `cut off by the server's stop: ${outcome.error}` };
    const delay = cutOff ? 0 : this.schedule(handler)[message.attempt - 1];
    const giveUp = !outcome.ok && (outcome.permanent === true || delay === undefined);
    try {
      const recorded = await recordAttempt(this.options.db, message, {
        startedAt,
        finishedAt,
        ok: outcome.ok,
        error: outcome.ok ? null : outcome.error.slice(0, 2000),
        detail: outcome.detail ?? null,
        nextAttemptAt: outcome.ok || giveUp ? null : new Date(finishedAt.getTime() + (delay ?? 0)),
      });
      const fields = { messageId: message.id, topic: message.topic, attempt: message.attempt };
      if (!recorded)
        this.log?.warn(fields, 'outbox: the claim ran out during the send; another attempt owns it');
      else if (outcome.ok) this.log?.info(fields, 'outbox: delivered');
      else if (giveUp) this.log?.error({ ...fields, error: outcome.error }, 'outbox: given up');
      else this.log?.warn({ ...fields, error: outcome.error, retryInMs: delay }, 'outbox: attempt failed');
    } catch (err) {
      // The claim's lease runs out and the message is sent again: at least once.
      this.log?.error({ err, messageId: message.id }, 'outbox: recording the attempt failed');
    }
  }
}
