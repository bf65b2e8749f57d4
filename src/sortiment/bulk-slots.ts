import { AppError } from '../shared/errors.js';

/**
 * How many sortiment bulk uploads run at once (docs/decisions.md, "Sortiment"): each
 * holds up to a body of BULK_BODY_LIMIT_BYTES and its articles while it reads them, so their
 * number bounds the memory of the process. At most `perTerminal` per authenticated terminal and
 * `perProcess` in the whole process; a slot is taken before the body is read and given back
 * when the upload has ended, in success, in error, or because its client went away.
 */
export interface BulkSlotLimits {
  readonly perTerminal: number;
  readonly perProcess: number;
  /** The seconds a refused client is told to wait (Retry-After). */
  readonly retryAfterSeconds: number;
}

/** A taken slot; `release` may be called any number of times, it gives the slot back once. */
export interface BulkSlot {
  release(): void;
  readonly released: boolean;
}

/** A refusal: 429 / 1050 for the terminal's limit, 503 / 1051 for the process's. */
export class BulkSlotRefused extends AppError {
  constructor(
    name: 'bulkUploadRunning' | 'bulkUploadsBusy',
    readonly retryAfterSeconds: number,
  ) {
    super(name);
  }
}

export class BulkUploadSlots {
  private running = 0;
  private readonly perTerminal = new Map<string, number>();

  constructor(readonly limits: BulkSlotLimits) {}

  /** Uploads running now (metrics, tests). */
  get inUse(): number {
    return this.running;
  }

  /** Takes a slot for the terminal, or throws BulkSlotRefused. */
  take(terminal: string): BulkSlot {
    const mine = this.perTerminal.get(terminal) ?? 0;
    if (mine >= this.limits.perTerminal) {
      throw new BulkSlotRefused('bulkUploadRunning', this.limits.retryAfterSeconds);
    }
    if (this.running >= this.limits.perProcess) {
      throw new BulkSlotRefused('bulkUploadsBusy', this.limits.retryAfterSeconds);
    }
    this.running += 1;
    this.perTerminal.set(terminal, mine + 1);
    let released = false;
    return {
      get released() {
        return released;
      },
      release: () => {
        if (released) return;
        released = true;
        this.running -= 1;
        const left = (this.perTerminal.get(terminal) ?? 1) - 1;
        if (left > 0) this.perTerminal.set(terminal, left);
        else this.perTerminal.delete(terminal);
      },
    };
  }
}
