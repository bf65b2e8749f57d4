import { type Decimal, divRoundHalfAwayFromZero, parseDecimal, powerOfTen } from '../shared/money.js';
import { prorate } from '../shared/prorate.js';

/**
 * Checkout pricing, pure (docs/decisions.md, "Checkout v1: pricing and VAT"). Prices are gross.
 * Per VAT rate: net = round(gross * 100 / (100 + rate)) half away from zero, tax = gross - net.
 * `vats` sums the gross per rate first and then splits it; the positions of a rate share the
 * rate's net by the largest-remainder method in proportion to their gross, so the positions' net
 * and tax add up to the rate's to the cent, and every position's gross = net + tax.
 */

export interface VatSplit {
  readonly netMinor: number;
  readonly taxMinor: number;
}

/**
 * The rates read so far, by their text: a merchant's articles carry a handful, and reading one
 * (its digits as a bigint) cost about as much as the rest of pricing a position. A Decimal is
 * never changed, so one value serves every order.
 */
const RATES = new Map<string, Decimal | null>();
const RATES_KEPT = 256;

/** A VAT rate as decimal text ("19", "7.7"): its exact value for arithmetic. */
export function parseRate(rateText: string): Decimal | null {
  const known = RATES.get(rateText);
  if (known !== undefined) return known;
  const d = parseDecimal(rateText);
  const rate = !d || d.units < 0n ? null : d;
  if (RATES.size >= RATES_KEPT) RATES.clear();
  RATES.set(rateText, rate);
  return rate;
}

/** net = round(gross * 100 / (100 + rate)), tax = gross - net. */
export function splitVat(grossMinor: number, rate: Decimal): VatSplit {
  const scale = powerOfTen(rate.scale);
  const net = Number(divRoundHalfAwayFromZero(BigInt(grossMinor) * 100n * scale, 100n * scale + rate.units));
  return { netMinor: net, taxMinor: grossMinor - net };
}

export interface PricingLine {
  readonly positionId: number;
  readonly productPlu: string;
  readonly quantity: number;
  /** unit price times quantity, rounded half away from zero. */
  readonly lineGrossMinor: number;
  /** What campaigns took off this position (product rewards and its share of bill rewards). */
  readonly discountMinor: number;
  readonly rateText: string;
}

export interface PricedPosition {
  readonly positionId: number;
  readonly productPlu: string;
  readonly quantity: number;
  readonly lineGrossMinor: number;
  readonly discountMinor: number;
  /** Gross of the position after campaigns: the seed's `price`. */
  readonly priceMinor: number;
  readonly vat: { rateText: string; grossMinor: number; netMinor: number; taxMinor: number };
}

export interface VatLine {
  readonly rateText: string;
  readonly grossMinor: number;
  readonly netMinor: number;
  readonly taxMinor: number;
}

export interface PricedBasket {
  readonly positions: PricedPosition[];
  readonly vats: VatLine[];
  readonly totalGrossMinor: number;
}

/** Rates in ascending order of their value, so that `vats` reads the same for every basket. */
function compareRates(a: string, b: string): number {
  const x = parseRate(a);
  const y = parseRate(b);
  if (!x || !y) return a.localeCompare(b);
  const l = x.units * powerOfTen(y.scale);
  const r = y.units * powerOfTen(x.scale);
  return l < r ? -1 : l > r ? 1 : 0;
}

export function priceBasket(lines: readonly PricingLine[]): PricedBasket {
  const byRate = new Map<string, number[]>();
  lines.forEach((line, i) => {
    const list = byRate.get(line.rateText) ?? [];
    list.push(i);
    byRate.set(line.rateText, list);
  });
  const positionVat = new Array<VatSplit>(lines.length);
  const vats: VatLine[] = [];
  for (const rateText of [...byRate.keys()].sort(compareRates)) {
    const members = byRate.get(rateText) ?? [];
    const rate = parseRate(rateText);
    if (!rate) throw new RangeError(`VAT rate "${rateText}" is not a decimal`);
    const grosses = members.map((i) => {
      const l = lines[i] as PricingLine;
      return l.lineGrossMinor - l.discountMinor;
    });
    const gross = grosses.reduce((a, b) => a + b, 0);
    const split = splitVat(gross, rate);
    const nets = prorate(split.netMinor, grosses);
    members.forEach((i, k) => {
      const net = nets[k] ?? 0;
      positionVat[i] = { netMinor: net, taxMinor: (grosses[k] ?? 0) - net };
    });
    vats.push({ rateText, grossMinor: gross, netMinor: split.netMinor, taxMinor: split.taxMinor });
  }
  const positions = lines.map((l, i) => {
    const price = l.lineGrossMinor - l.discountMinor;
    const vat = positionVat[i] ?? { netMinor: 0, taxMinor: 0 };
    return {
      positionId: l.positionId,
      productPlu: l.productPlu,
      quantity: l.quantity,
      lineGrossMinor: l.lineGrossMinor,
      discountMinor: l.discountMinor,
      priceMinor: price,
      vat: { rateText: l.rateText, grossMinor: price, netMinor: vat.netMinor, taxMinor: vat.taxMinor },
    };
  });
  return { positions, vats, totalGrossMinor: positions.reduce((a, p) => a + p.priceMinor, 0) };
}

/**
 * Campaign rewards per position: product-level rewards name their position; a bill reward
 * (position 0) is shared over the positions by largest remainder in proportion to what is left
 * of each after the product-level rewards.
 */
export function discountsByPosition(
  lines: readonly { positionId: number; lineGrossMinor: number }[],
  rewards: readonly { positionId: number; grossRewardMinor: number }[],
): number[] {
  const out = lines.map(() => 0);
  const index = new Map(lines.map((l, i) => [l.positionId, i]));
  let billMinor = 0;
  for (const r of rewards) {
    const i = r.positionId === 0 ? undefined : index.get(r.positionId);
    if (i === undefined) billMinor += r.grossRewardMinor;
    else out[i] = (out[i] ?? 0) + r.grossRewardMinor;
  }
  if (billMinor > 0 && lines.length > 0) {
    const left = lines.map((l, i) => Math.max(0, l.lineGrossMinor - (out[i] ?? 0)));
    const shares = prorate(billMinor, left);
    shares.forEach((s, i) => (out[i] = (out[i] ?? 0) + s));
  }
  return out;
}
