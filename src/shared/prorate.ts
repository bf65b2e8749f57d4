/**
 * Splits an integer amount of minor units into parts proportional to integer weights, so that the
 * parts add up exactly to the whole (docs/decisions.md, "Money": the largest-remainder method).
 *
 * Every part is the floor of its exact share; the units left over go one each to the parts with
 * the largest remainders, ties to the lower index. When all weights are zero the amount is split
 * evenly (every weight counts as 1). A negative total is split as its absolute value, negated.
 */
export function prorate(total: number, weights: readonly number[]): number[] {
  if (!Number.isSafeInteger(total)) throw new RangeError('prorate: total must be a safe integer');
  const n = weights.length;
  if (n === 0) {
    if (total !== 0) throw new RangeError('prorate: cannot split a non-zero total over no parts');
    return [];
  }
  for (const w of weights) {
    if (!Number.isSafeInteger(w) || w < 0)
      throw new RangeError('prorate: weights must be non-negative safe integers');
  }
  if (total < 0) return prorate(-total, weights).map((p) => (p === 0 ? 0 : -p));

  let sum = 0;
  for (const w of weights) sum += w;
  const effective = sum === 0 ? weights.map(() => 1) : weights;
  const weightSum = sum === 0 ? n : sum;
  if (!Number.isSafeInteger(weightSum)) return prorateBig(total, effective);

  let maxWeight = 0;
  for (const w of effective) if (w > maxWeight) maxWeight = w;
  if (!Number.isSafeInteger(total * maxWeight)) return prorateBig(total, effective);

  const parts = new Array<number>(n);
  const remainders = new Array<number>(n);
  let given = 0;
  for (let i = 0; i < n; i++) {
    const product = total * (effective[i] ?? 0);
    const part = Math.floor(product / weightSum);
    parts[i] = part;
    remainders[i] = product - part * weightSum;
    given += part;
  }
  distributeLeftover(parts, remainders, total - given);
  return parts;
}

function prorateBig(total: number, weights: readonly number[]): number[] {
  const t = BigInt(total);
  let sum = 0n;
  for (const w of weights) sum += BigInt(w);
  const parts: number[] = [];
  const remainders: bigint[] = [];
  let given = 0;
  for (const w of weights) {
    const product = t * BigInt(w);
    const part = product / sum;
    parts.push(Number(part));
    remainders.push(product - part * sum);
    given += Number(part);
  }
  distributeLeftover(parts, remainders, total - given);
  return parts;
}

/** Gives one unit each to the `leftover` largest remainders, ties to the lower index. */
function distributeLeftover<R extends number | bigint>(
  parts: number[],
  remainders: readonly R[],
  leftover: number,
): void {
  if (leftover <= 0) return;
  const order = remainders.map((_, i) => i);
  order.sort((a, b) => {
    const ra = remainders[a] as R;
    const rb = remainders[b] as R;
    if (ra === rb) return a - b;
    return ra > rb ? -1 : 1;
  });
  for (let k = 0; k < leftover; k++) {
    const i = order[k] as number;
    parts[i] = (parts[i] ?? 0) + 1;
  }
}
