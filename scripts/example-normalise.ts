import { createHash } from 'node:crypto';

/**
 * The tests' traffic made the same on every run, for the API reference's examples
 * (docs/decisions.md, "Examples and webhooks in the reference"): what a run makes up (random ids,
 * keys and tokens, the test worker's process id in the tests' unique names, the merchants' random
 * name suffixes, the clock's times) is replaced, exchange by exchange, by values of the same shape
 * that depend only on where they first appear in the exchange. The same value stands for the same
 * value within one exchange (a basketId in the request and in the answer), the clock's times keep
 * their order and, to the minute, their distance, the days and times the tests made before the run
 * (from a quarter back) their distance in days, the counters in the tests' unique names their
 * order. A second run of the same tests changes the examples only where the traffic itself
 * differs: values this does not know for random (a campaign's unique codes, a time of day set back
 * by whole days), and which exchange is the fullest when the tests ran in another order.
 */

/** Where the clock's times are put: the earliest time of each exchange becomes this one. */
const BASE_MS = Date.UTC(2026, 2, 2, 11, 30, 0);
const DAY_MS = 86_400_000;
/**
 * How far before the run a day or time is still taken for one the tests made relative to their
 * clock (a 30-day period's start, a client revoked 26 days ago) and moved with the exchange's other
 * days: a quarter. Older ones are taken for the tests' own fixed values (a clock set to a day of
 * March 2026, a campaign valid from 1 March to 1 June) and kept.
 */
const RELATIVE_MS = 92 * DAY_MS;

const TIME = String.raw`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})`;
const DATE = String.raw`\d{4}-\d{2}-\d{2}(?![\dT])`;
const UUID = String.raw`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`;
const MERCHANT = String.raw`merchant-\d+-[0-9a-f]{8}`;
/** A webhook's signing secret (Standard Webhooks: `whsec_` and base64). */
const WHSEC = String.raw`whsec_[A-Za-z0-9+/_-]{16,}={0,2}`;
const PREFIXED = String.raw`[a-z]{2,6}_(?:[A-Za-z0-9]{12,}|[A-Za-z0-9_-]{16,})`;
const PORT = String.raw`(?<=(?:127\.0\.0\.1|localhost):)\d{4,5}`;
/** A UUID anywhere, and the start of one the tests cut off after a word (`card-97ea3f8c-176`). */
const UUID_ANYWHERE = new RegExp(`(?<![0-9a-fA-F])${UUID}(?![0-9a-fA-F])`, 'g');
/** What the UUID passes made already: not a token. */
const MADE_UUID = new RegExp(`${UUID}|[A-Za-z]-[0-9a-f]{8}-[0-9a-f]{3,4}$`);
const UUID_START = /(?<=[A-Za-z]-)[0-9a-f]{8}-[0-9a-f]{3,4}(?![A-Za-z0-9-])/g;
/** A card the tests name by a letter and eight hex digits of a random UUID (`K-837eec2c`). */
const CARD_HEX = /(?<=(?<![A-Za-z0-9])[A-Z]-)[0-9a-f]{8}(?![A-Za-z0-9-])/g;
/** The counter after the worker's process id in the tests' unique names (`anon-4711-23`). */
const NAME_COUNTER = /(?<=-4711-)\d+(?!\d)/g;
const TOKEN = String.raw`[A-Za-z0-9_-]{16,}`;
const HEX = String.raw`[0-9a-f]{8,}`;
const VOLATILE = new RegExp(
  `(?<![A-Za-z0-9_-])(?:(${TIME})|(${DATE})|(${MERCHANT})|(${WHSEC})|(${PREFIXED})|(${PORT})|(${TOKEN})|(${HEX}))(?![A-Za-z0-9_-])`,
  'g',
);

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** Where the run's files were: stack traces name them. */
const FILES = /file:\/\/\/[^\s()"]*?\/(node_modules|src|dist|test)\//g;
const ALPHABETS = {
  hex: '0123456789abcdef',
  base32: 'abcdefghijklmnopqrstuvwxyz234567',
  base64url: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_',
};

/** `length` characters of `alphabet`, the same for the same seed on every run. */
function madeUp(seed: string, length: number, alphabet: string): string {
  let out = '';
  for (let round = 0; out.length < length; round += 1) {
    const bytes = createHash('sha256').update(`${seed}:${round}`).digest();
    for (const b of bytes) if (out.length < length) out += alphabet[b % alphabet.length];
  }
  return out;
}

const randomLooking = (s: string) => /\d/.test(s) && /[A-Za-z]/.test(s);
/** A name the tests made of words and counters (`bill-paid-4711-12`) is kept as it reads. */
const wordy = (s: string) => {
  const parts = s.split(/[-_]/);
  return (
    parts.length > 1 &&
    parts.every((part) => /^(?:[a-z]*|\d+)$/.test(part)) &&
    parts.some((part) => /^[a-z]{3,}$/.test(part))
  );
};

/** An ISO time with the offset and the precision of `like`. */
function isoLike(ms: number, like: string): string {
  const offset = /([+-])(\d{2}):(\d{2})$/.exec(like);
  const offsetMin = offset ? (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3])) : 0;
  const local = new Date(ms + offsetMin * 60_000).toISOString();
  const fraction = /\.(\d+)/.exec(like)?.[1]?.length ?? 0;
  const head = local.slice(0, 19) + (fraction > 0 ? `.${local.slice(20, 23).padEnd(fraction, '0')}` : '');
  return head + (offset ? offset[0] : 'Z');
}

/** One exchange's replacements: the same value gets the same stand-in, each class counted apart. */
class StandIns {
  readonly #seen = new Map<string, string>();
  readonly #counts = new Map<string, number>();
  readonly #times = new Map<number, number>();
  #anchorDayMs: number | null = null;

  constructor(
    private readonly pid: string | null,
    private readonly startedAtMs: number | null,
  ) {}

  #next(kind: string, original: string, make: (seed: string) => string): string {
    const key = `${kind}\u0000${original}`;
    const known = this.#seen.get(key);
    if (known !== undefined) return known;
    const n = (this.#counts.get(kind) ?? 0) + 1;
    this.#counts.set(kind, n);
    const made = make(`${kind}:${n}`);
    this.#seen.set(key, made);
    return made;
  }

  /**
   * The exchange's times that the test clock made (from the run's start on), in order: the first
   * is put at BASE_MS and each later one after the one before it, by the gap between them rounded
   * to whole minutes (a gap under a minute counts one second), since the clocks run on with the
   * machine's time between the steps a test makes and those seconds differ from run to run.
   */
  #clockTimes(entry: unknown): void {
    if (this.startedAtMs === null) return;
    const from = this.startedAtMs - 60_000;
    const all = [...JSON.stringify(entry).matchAll(new RegExp(TIME, 'g'))]
      .map((m) => Date.parse(m[0]))
      .filter((ms) => ms >= from);
    const sorted = [...new Set(all)].sort((a, b) => a - b);
    let at = BASE_MS;
    sorted.forEach((ms, i) => {
      const gap = i === 0 ? 0 : ms - (sorted[i - 1] ?? ms);
      at += i === 0 ? 0 : gap < 60_000 ? 1000 : Math.round(gap / 60_000) * 60_000;
      this.#times.set(ms, at);
    });
    const first = sorted[0];
    if (first !== undefined) this.#anchorDayMs = Math.floor(first / DAY_MS) * DAY_MS;
  }

  /**
   * A day or time from RELATIVE_MS before the run on, moved by whole days: each keeps its distance
   * in days from the day of the exchange's first clock time (or, without one, of the first such
   * value), which becomes BASE_MS's day; null for an older one (a fixed value of the tests).
   */
  #shifted(ms: number): number | null {
    if (this.startedAtMs === null || !(ms >= this.startedAtMs - RELATIVE_MS)) return null;
    this.#anchorDayMs ??= Math.floor(ms / DAY_MS) * DAY_MS;
    return ms + (Math.floor(BASE_MS / DAY_MS) * DAY_MS - this.#anchorDayMs);
  }

  static of(entry: unknown, pid: string | null, startedAtMs: number | null): StandIns {
    const made = new StandIns(pid, startedAtMs);
    made.#clockTimes(entry);
    return made;
  }

  #uuid(uuid: string): string {
    return this.#next('uuid', uuid.toLowerCase(), (seed) => {
      const h = madeUp(seed, 32, ALPHABETS.hex);
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
    });
  }

  text(s: string): string {
    const pidFree = this.pid === null ? s : s.replaceAll(`-${this.pid}-`, '-4711-');
    const here = pidFree.replace(FILES, 'file:///srv/punchcard/$1/');
    const uuidFree = here
      .replace(UUID_ANYWHERE, (uuid) => this.#uuid(uuid))
      .replace(UUID_START, (cut) => this.#uuid(cut).slice(0, cut.length))
      .replace(CARD_HEX, (hex) => this.#next('card', hex, (seed) => madeUp(seed, 8, ALPHABETS.hex)))
      // Numbered in the order they appear in the exchange: which files shared a worker before moves
      // the counters, not what the example shows.
      .replace(NAME_COUNTER, (n) => this.#next('counter', n, (seed) => seed.split(':')[1] ?? '1'));
    return uuidFree.replace(
      VOLATILE,
      (
        all,
        time?: string,
        date?: string,
        merchant?: string,
        whsec?: string,
        prefixed?: string,
        port?: string,
      ) => {
        if (time !== undefined) {
          const ms = Date.parse(time);
          const at = this.#times.get(ms);
          if (at !== undefined) return isoLike(at, time);
          // A time before the run (a period's end, a row the clock made days back): moved by the
          // days the exchange's days move, before the first of its clock's times.
          const shifted = this.#shifted(ms);
          if (shifted === null) return all;
          return isoLike(this.#times.size > 0 ? Math.min(shifted, BASE_MS - 60_000) : shifted, time);
        }
        if (date !== undefined) {
          const shifted = this.#shifted(Date.parse(`${date}T00:00:00Z`));
          return shifted === null ? all : new Date(shifted).toISOString().slice(0, 10);
        }
        if (merchant !== undefined) {
          return this.#next('merchant', merchant, (seed) => {
            const n = seed.split(':')[1] ?? '1';
            return `merchant-${n}-${madeUp(seed, 8, ALPHABETS.hex)}`;
          });
        }
        if (whsec !== undefined) {
          return this.#next('whsec', whsec, (seed) => `whsec_${madeUp(seed, whsec.length - 6, BASE64)}`);
        }
        if (prefixed !== undefined) {
          const cut = prefixed.indexOf('_');
          const prefix = prefixed.slice(0, cut);
          const rest = prefixed.slice(cut + 1);
          // An id: random, or as long as no word is (`req_` and 24 base32 letters may hold no digit).
          if (wordy(rest) || !(randomLooking(rest) || (/^[A-Za-z0-9]+$/.test(rest) && rest.length >= 20)))
            return all;
          return this.#next(
            prefix,
            prefixed,
            (seed) => `${prefix}_${madeUp(seed, rest.length, alphabetOf(rest))}`,
          );
        }
        if (port !== undefined)
          return this.#next('port', port, (seed) => String(40_000 + Number(seed.split(':')[1])));
        // A long token or a hex id: random when it mixes digits and letters.
        if (!randomLooking(all) || wordy(all) || MADE_UUID.test(all)) return all;
        return this.#next('token', all, (seed) => madeUp(seed, all.length, alphabetOf(all)));
      },
    );
  }

  value(v: unknown): unknown {
    if (typeof v === 'string') return this.text(v);
    if (Array.isArray(v)) return v.map((x) => this.value(x));
    if (typeof v === 'object' && v !== null) {
      return Object.fromEntries(
        Object.entries(v).map(([k, x]) => {
          // A one-time password is digits only, and random.
          if (k === 'otp' && typeof x === 'string' && /^\d+$/.test(x)) {
            return [k, this.#next('otp', x, (seed) => madeUp(seed, x.length, '0123456789'))];
          }
          return [k, this.value(x)];
        }),
      );
    }
    return v;
  }
}

function alphabetOf(s: string): string {
  if (/^[0-9a-f]+$/.test(s)) return ALPHABETS.hex;
  if (/^[a-z2-7]+$/.test(s)) return ALPHABETS.base32;
  return ALPHABETS.base64url;
}

/**
 * One recorded exchange or delivery with its made-up values replaced. `pid` is the process id of
 * the test worker that recorded it (it is in the tests' unique names), `startedAtMs` when the run
 * began (the test clocks start at the time they are made, so every later time is the clock's).
 * The answers' header values are dropped: the examples keep only the headers' names.
 */
export function normaliseEntry<T extends { headers: Record<string, string> }>(
  entry: T,
  pid: string | null,
  startedAtMs: number | null,
): T {
  const standIns = StandIns.of(entry, pid, startedAtMs);
  const headers = Object.fromEntries(Object.keys(entry.headers).map((k) => [k, '']));
  return { ...(standIns.value({ ...entry, headers: {} }) as T), headers };
}
