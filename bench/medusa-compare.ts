/*
 * Punchcard's stacking engine against Medusa's promotion computation, on the same carts.
 * Medusa is not a dependency of the project: this script loads Medusa's published packages from
 * MEDUSA_DIR (an npm install of @medusajs/utils and @medusajs/promotion made outside the
 * repository, see docs/performance.md, "Stacking against Medusa's promotion computation").
 *
 *   MEDUSA_DIR=/tmp/medusa-2.21.2 npx tsx bench/medusa-compare.ts [carts]
 *
 * Medusa is driven through getComputedActionsForItems (compute-actions/line-items, which calls
 * calculateAdjustmentAmountFromPromotion of @medusajs/utils): one promotion after the other, in the
 * engine's order of application, allocation "each", max_quantity high enough for every unit, a
 * target rule on product_id for a campaign with a product list, amounts in minor units.
 *
 * Two comparisons:
 *  - step: each promotion gets as "applied so far" the engine's own (whole minor unit) rewards
 *    before it; Medusa's decimal amount rounded half away from zero must equal the engine's reward.
 *  - chain: Medusa runs alone, carrying its own unrounded amounts from promotion to promotion; the
 *    engine's reward is compared with Medusa's amount, difference counted in minor units.
 */
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import fc from 'fast-check';
import { buildCampaignIndex } from '../src/engine/campaign-index.js';
import { evaluateBasket } from '../src/engine/evaluate.js';
import type { Campaign, EnginePosition } from '../src/engine/types.js';
import * as fx from '../test/engine/fixtures.js';

const medusaDir = process.env.MEDUSA_DIR;
if (!medusaDir)
  throw new Error('MEDUSA_DIR: a directory with @medusajs/utils and @medusajs/promotion installed');
const medusaRequire = createRequire(path.join(medusaDir, 'package.json'));

type BN = { toString(): string };
type Action = { action: string; item_id: string; amount: BN; code: string };
type MedusaItem = {
  id: string;
  quantity: number;
  subtotal: number;
  original_total: number;
  product_id: string;
};
type MedusaPromotion = {
  code: string;
  is_tax_inclusive: boolean;
  application_method: {
    type: 'percentage' | 'fixed';
    value: number;
    allocation: 'each';
    target_type: 'items';
    max_quantity: number;
    target_rules: { attribute: string; operator: string; values: { value: string }[] }[];
  };
};
// @medusajs/promotion takes its utilities from @medusajs/framework/utils, which re-exports
// @medusajs/utils; the framework (a whole server) is not installed, the name is pointed there.
const hooked = Module as unknown as { _resolveFilename: (req: string, ...rest: unknown[]) => string };
const resolve = hooked._resolveFilename;
hooked._resolveFilename = (req, ...rest) =>
  resolve(req === '@medusajs/framework/utils' ? medusaRequire.resolve('@medusajs/utils') : req, ...rest);
const lineItems = medusaRequire(
  path.join(medusaDir, 'node_modules/@medusajs/promotion/dist/utils/compute-actions/line-items.js'),
) as {
  getComputedActionsForItems: (
    p: MedusaPromotion,
    items: MedusaItem[],
    applied: Map<string, unknown>,
  ) => Action[];
};
const versionOf = (name: string): string =>
  (medusaRequire(path.join(medusaDir, 'node_modules', name, 'package.json')) as { version: string }).version;
const medusaVersion = versionOf('@medusajs/promotion');
const utilsVersion = versionOf('@medusajs/utils');

const PLUS = ['coffee', 'bread', 'milk'];

/** The engine's order of application (docs/decisions.md, "Stacking per campaign"). */
function inOrderOfApplication(campaigns: Campaign[]): Campaign[] {
  const kindRank = (c: Campaign): number => ({ percent: 0, amount: 1, price: 2 })[c.discount.kind];
  return [...campaigns].sort((a, b) => b.priority - a.priority || kindRank(a) - kindRank(b) || a.id - b.id);
}

function toMedusa(c: Campaign): MedusaPromotion {
  const plus = c.products.map((s) => ('plu' in s ? String(s.plu) : ''));
  return {
    code: String(c.id),
    is_tax_inclusive: false,
    application_method: {
      type: c.discount.kind === 'percent' ? 'percentage' : 'fixed',
      value: c.discount.kind === 'percent' ? c.discount.bp / 100 : c.discount.minor,
      allocation: 'each',
      target_type: 'items',
      max_quantity: 1_000_000,
      target_rules: plus.length
        ? [{ attribute: 'product_id', operator: 'in', values: plus.map((value) => ({ value })) }]
        : [],
    },
  };
}

const items = (positions: EnginePosition[]): MedusaItem[] =>
  positions.map((p) => ({
    id: String(p.positionId),
    quantity: p.pieces,
    subtotal: p.lineGrossMinor,
    original_total: p.lineGrossMinor,
    product_id: p.productId ?? '',
  }));

/** Half away from zero, as the engine rounds a percentage (src/engine/minor-math.ts). */
const roundHalfUp = (s: string): number => {
  const [whole, frac = ''] = s.split('.');
  return Number(whole) + (frac !== '' && Number(frac[0]) >= 5 ? 1 : 0);
};

type Cart = { positions: EnginePosition[]; campaigns: Campaign[] };
type Outcome = {
  stepMismatches: string[];
  chainDiffs: number[];
  lineTotalDiffs: number[];
  medusaOnly: number;
  medusaOnlyMax: number;
  rewards: number;
  lines: Map<string, [number, string]>;
};

function compare(cart: Cart): Outcome {
  const b = fx.basket(cart.positions);
  const r = evaluateBasket(buildCampaignIndex(cart.campaigns), [], b, null, {});
  const ours = new Map<string, number>();
  for (const x of r.rewards) ours.set(`${x.couponId}/${x.positionId}`, x.grossRewardMinor);
  const order = inOrderOfApplication(cart.campaigns);
  const out: Outcome = {
    stepMismatches: [],
    chainDiffs: [],
    lineTotalDiffs: [],
    medusaOnly: 0,
    medusaOnlyMax: 0,
    rewards: ours.size,
    lines: new Map(),
  };
  const seen = new Set<string>();
  // step: Medusa's promotion on the engine's own rewards before it
  const before = new Map<string, number>();
  for (const c of order) {
    const applied = new Map<string, unknown>(before);
    const actions = lineItems.getComputedActionsForItems(toMedusa(c), items(cart.positions), applied);
    const medusa = new Map(
      actions.filter((a) => a.action === 'addItemAdjustment').map((a) => [a.item_id, a.amount.toString()]),
    );
    for (const p of cart.positions) {
      const key = `${c.id}/${p.positionId}`;
      const m = medusa.get(String(p.positionId));
      const expected = m === undefined ? 0 : roundHalfUp(m);
      const got = ours.get(key) ?? 0;
      if (got !== expected) out.stepMismatches.push(`${key}: engine ${got}, Medusa ${m ?? 'none'}`);
      if (got > 0) {
        seen.add(key);
        before.set(String(p.positionId), (before.get(String(p.positionId)) ?? 0) + got);
      }
    }
  }
  for (const key of ours.keys()) if (!seen.has(key)) out.stepMismatches.push(`${key}: engine only`);
  // chain: Medusa alone, unrounded from promotion to promotion
  const applied = new Map<string, unknown>();
  for (const c of order) {
    for (const a of lineItems.getComputedActionsForItems(toMedusa(c), items(cart.positions), applied)) {
      const key = `${c.id}/${a.item_id}`;
      const m = a.amount.toString();
      out.chainDiffs.push(Math.abs((ours.get(key) ?? 0) - Number(m)));
      if (!ours.has(key)) {
        out.medusaOnly++;
        out.medusaOnlyMax = Math.max(out.medusaOnlyMax, Number(m));
      }
      out.lines.set(key, [ours.get(key) ?? 0, m]);
    }
  }
  for (const p of cart.positions) {
    const id = String(p.positionId);
    let engine = 0;
    for (const [k, v] of ours) if (k.endsWith(`/${id}`)) engine += v;
    out.lineTotalDiffs.push(Math.abs(engine - Number(String(applied.get(id) ?? 0))));
  }
  return out;
}

const stackable = { stacking: { mode: 'stackable' as const } };
const percent = (id: number, bp: number, over: Partial<Campaign> = {}): Campaign =>
  fx.campaign({ id, type: 'product', discount: { kind: 'percent', bp }, ...stackable, ...over });
const amount = (id: number, minor: number, over: Partial<Campaign> = {}): Campaign =>
  fx.campaign({ id, type: 'product', discount: { kind: 'amount', minor }, ...stackable, ...over });
const coffee = { products: [{ plu: 'coffee' }] };

const handCarts: [string, Cart][] = [
  [
    'percentage then amount (10 % on everything, coffee -0.50)',
    {
      positions: [fx.pos(1, 'coffee', 250), fx.pos(2, 'bread', 400)],
      campaigns: [percent(1, 1000), amount(2, 50, coffee)],
    },
  ],
  [
    'amount then percentage (coffee -0.50 at a higher priority)',
    {
      positions: [fx.pos(1, 'coffee', 250)],
      campaigns: [percent(1, 1000), amount(2, 50, { ...coffee, priority: 5 })],
    },
  ],
  [
    'a cap at zero (10 %, then 3.00 off each of 2 coffees)',
    { positions: [fx.pos(1, 'coffee', 250, 2)], campaigns: [percent(1, 1000), amount(2, 300, coffee)] },
  ],
  [
    'several lines, three promotions, odd percentages',
    {
      positions: [fx.pos(1, 'coffee', 299, 3), fx.pos(2, 'bread', 145), fx.pos(3, 'milk', 1999, 2)],
      campaigns: [
        percent(1, 1250),
        percent(2, 333, { priority: 2 }),
        amount(3, 17, { products: [{ plu: 'milk' }, { plu: 'coffee' }] }),
      ],
    },
  ],
  [
    '100 % first: nothing left for the next',
    {
      positions: [fx.pos(1, 'coffee', 250)],
      campaigns: [percent(1, 10000, { priority: 1 }), amount(2, 50, coffee)],
    },
  ],
];

let failures = 0;
const diffCounts = new Map<number, number>();
const tally = (o: Outcome): void => {
  for (const d of o.chainDiffs) {
    const k = Math.ceil(d * 100) / 100;
    const bucket = d === 0 ? 0 : d < 0.5 ? 0.5 : d <= 1 ? 1 : k;
    diffCounts.set(bucket, (diffCounts.get(bucket) ?? 0) + 1);
  }
};
console.log(
  `Medusa @medusajs/promotion ${medusaVersion}, @medusajs/utils ${utilsVersion}; engine of this checkout`,
);
for (const [name, cart] of handCarts) {
  const o = compare(cart);
  tally(o);
  failures += o.stepMismatches.length;
  const shown = [...o.lines].map(([k, [e, m]]) => `${k} engine ${e} Medusa ${m}`).join('; ');
  console.log(`${o.stepMismatches.length ? 'DIFFERS' : 'same'}  ${name}: ${shown}`);
  for (const m of o.stepMismatches) console.log(`   ${m}`);
}

const runs = Number(process.argv[2] ?? 10_000);
const positionArb = (id: number): fc.Arbitrary<EnginePosition> =>
  fc
    .record({
      plu: fc.constantFrom(...PLUS),
      price: fc.integer({ min: 1, max: 20_000 }),
      pieces: fc.integer({ min: 1, max: 6 }),
    })
    .map(({ plu, price, pieces }) => fx.pos(id, plu, price, pieces));
const campaignArb = (id: number): fc.Arbitrary<Campaign> =>
  fc
    .record({
      kind: fc.constantFrom('percent', 'amount'),
      bp: fc.oneof(fc.integer({ min: 1, max: 10_000 }), fc.constantFrom(500, 1000, 2500, 5000)),
      minor: fc.integer({ min: 1, max: 5_000 }),
      priority: fc.integer({ min: 0, max: 3 }),
      plus: fc.subarray(PLUS),
    })
    .map(({ kind, bp, minor, priority, plus }) =>
      (kind === 'percent' ? percent : amount)(id, kind === 'percent' ? bp : minor, {
        priority,
        products: plus.map((plu) => ({ plu })),
      }),
    );
const cartArb: fc.Arbitrary<Cart> = fc
  .record({ n: fc.integer({ min: 1, max: 6 }), m: fc.integer({ min: 1, max: 5 }) })
  .chain(({ n, m }) =>
    fc.record({
      positions: fc.tuple(...Array.from({ length: n }, (_, i) => positionArb(i + 1))),
      campaigns: fc.tuple(...Array.from({ length: m }, (_, i) => campaignArb(i + 1))),
    }),
  );
let carts = 0;
let rewards = 0;
let stepDiffering = 0;
let chainDiffering = 0;
let example: string | null = null;
let medusaOnly = 0;
let medusaOnlyMax = 0;
let lineTotalMax = 0;
let linesCompared = 0;
for (const cart of fc.sample(cartArb, { numRuns: runs, seed: 34 })) {
  const o = compare(cart);
  carts++;
  rewards += o.rewards;
  medusaOnly += o.medusaOnly;
  medusaOnlyMax = Math.max(medusaOnlyMax, o.medusaOnlyMax);
  linesCompared += o.lineTotalDiffs.length;
  lineTotalMax = Math.max(lineTotalMax, ...o.lineTotalDiffs);
  tally(o);
  if (o.stepMismatches.length) {
    stepDiffering++;
    failures += o.stepMismatches.length;
    if (stepDiffering <= 3) console.log('step mismatch', JSON.stringify(cart), o.stepMismatches);
  }
  if (o.chainDiffs.some((d) => d >= 1)) {
    chainDiffering++;
    example ??= [...o.lines].map(([k, [e, m]]) => `${k} engine ${e} Medusa ${m}`).join('; ');
  }
}
console.log(`random carts: ${carts} (seed 34), engine rewards ${rewards}`);
console.log(
  `step (Medusa on the engine's rewards before, rounded half away from zero): ${stepDiffering} carts differ`,
);
console.log(
  `chain (Medusa alone, unrounded): |engine - Medusa| per reward: ` +
    [...diffCounts]
      .sort((a, b) => a[0] - b[0])
      .map(([k, v]) => `${k === 0 ? '0' : k <= 0.5 ? '<0.5' : k <= 1 ? '0.5..1' : `>1 (${k})`}: ${v}`)
      .join(', '),
);
console.log(
  `Medusa adjustments where the engine gives none: ${medusaOnly}, the largest ${medusaOnlyMax} minor units`,
);
console.log(
  `lines: ${linesCompared}; largest |engine total - Medusa total| of a line: ${lineTotalMax.toFixed(6)} minor units`,
);
console.log(
  `carts with a reward 1 minor unit or more apart in the chain: ${chainDiffering}${example ? `; e.g. ${example}` : ''}`,
);
process.exit(failures ? 1 : 0);
