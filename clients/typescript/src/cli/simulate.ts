import { randomUUID } from 'node:crypto';
import { SingleBar } from 'cli-progress';
import type { Basket, BasketResponse } from '../generated/types.gen.js';
import { AdminClient } from '../admin-client.js';
import { PosClient, PunchcardError, type Terminal } from '../punchcard-client.js';

export interface SimulateOptions {
  baseUrl: string;
  adminToken: string;
  /** Merchant to create (a fresh name each run when absent). */
  merchant?: string;
  terminals: number;
  baskets: number;
  /** Uploads per second over all terminals; 0: as fast as the terminals go. */
  rate: number;
  /** Share of uploaded baskets that are granted, and of granted baskets that see a return. */
  grantShare: number;
  returnShare: number;
  /** Share of baskets that carry a customer card. */
  cardShare: number;
  gzip: boolean;
  seed: number;
  progress: boolean;
}

export interface SimulateSummary {
  merchant: string;
  terminals: number;
  baskets: number;
  uploaded: number;
  granted: number;
  returned: number;
  seconds: number;
  basketsPerSecond: number;
  uploadMsP50: number;
  uploadMsP99: number;
  rewards: number;
  rewardValue: number;
  points: number;
  errors: Record<string, number>;
}

/** A small deterministic generator, so that a seed repeats a run. */
function random(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

const CATALOGUE = [
  { plu: '1001', name: 'Coffee', price: 3.2, unit: 0 },
  { plu: '1002', name: 'Cappuccino', price: 3.9, unit: 0 },
  { plu: '1003', name: 'Tea', price: 2.6, unit: 0 },
  { plu: '2001', name: 'Croissant', price: 2.1, unit: 0 },
  { plu: '2002', name: 'Coffee beans (kg)', price: 19.9, unit: 1 },
  { plu: '3001', name: 'Sandwich', price: 5.5, unit: 0 },
  { plu: '3002', name: 'Cheesecake', price: 4.2, unit: 0 },
  { plu: '4001', name: 'Water', price: 1.8, unit: 0 },
] as const;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round((sorted[Math.max(0, index)] ?? 0) * 100) / 100;
}

/** One basket of the day: 1 to 5 lines, a timestamp between 07:00 and 22:00 in order. */
function basketAt(next: () => number, index: number, total: number, day: Date): Basket {
  const lines = 1 + Math.floor(next() * 5);
  const minute = 7 * 60 + Math.floor(((index + next()) / total) * 15 * 60);
  const at = new Date(day);
  at.setUTCHours(Math.floor(minute / 60), minute % 60, Math.floor(next() * 60), 0);
  const Positions = [];
  for (let i = 0; i < lines; i++) {
    const article = CATALOGUE[Math.floor(next() * CATALOGUE.length)] ?? CATALOGUE[0];
    const Amount =
      article.unit === 1 ? Math.round((0.1 + next() * 0.9) * 1000) / 1000 : 1 + Math.floor(next() * 3);
    Positions.push({
      PositionId: i + 1,
      ProductId: article.plu,
      ProductName: article.name,
      Unit: article.unit,
      Amount,
      CurrentGrossPrice: article.price,
    });
  }
  return { Timestamp: at.toISOString(), HasDiscounts: false, CurrencyISO: 'EUR', Positions };
}

/**
 * Sets up a merchant with campaigns, a stamp card, customer cards and terminals, then plays a
 * day of baskets through the POS interface: upload, grant, some returns.
 */
export async function simulate(o: SimulateOptions, log: (line: string) => void): Promise<SimulateSummary> {
  const next = random(o.seed);
  const admin = new AdminClient({ baseUrl: o.baseUrl, token: o.adminToken });
  const merchant = o.merchant ?? `sim-${randomUUID().slice(0, 8)}`;
  const { devKey } = await admin.createDevKey('Punchcard simulator');
  await admin.createMerchant({ serviceUserName: merchant, displayName: merchant, currency: 'EUR' });
  const { brandId } = await admin.createBrand(merchant, 'Simulated café');
  await admin.createCampaign(merchant, {
    name: 'Coffee 20%',
    type: 'product',
    discount: { percent: 20 },
    products: [{ plu: '1001' }],
  });
  await admin.createCampaign(merchant, {
    name: '2 EUR off from 25 EUR',
    type: 'bill',
    minTotal: 25,
    discount: { amount: 2 },
  });
  await admin.createLoyaltyScheme(merchant, {
    name: 'Coffee card',
    earn: [{ per: 'unit', products: [{ plu: '1001' }, { plu: '1002' }], points: 1 }],
    reward: { threshold: 10, type: 'product', products: [{ plu: '1001' }], discount: { percent: 100 } },
  });
  const cards: string[] = [];
  for (let i = 0; i < 20; i++) {
    const { id } = await admin.createProfile(merchant, { fullName: `Guest ${i + 1}` });
    const card = `CARD-${merchant}-${i + 1}`;
    await admin.linkCard(id, { tokenId: card, tokenType: 0 });
    cards.push(card);
  }

  const pos = new PosClient({ baseUrl: o.baseUrl, devKey, gzip: o.gzip });
  const outlet = await pos.createOutlet(merchant, brandId, { Name: 'Main street' });
  const tills: PosClient[] = [];
  for (let i = 0; i < o.terminals; i++) {
    const terminal: Terminal = await pos.registerTerminal({
      serviceUserName: merchant,
      outletId: outlet.Id,
      instanceName: `Till ${i + 1}`,
    });
    await admin.activateTerminal(terminal.trackingUnitId);
    tills.push(pos.forTerminal(terminal));
  }
  log(
    `merchant ${merchant}: ${o.terminals} terminals, 2 campaigns, a stamp card, ${cards.length} customer cards`,
  );

  const summary: SimulateSummary = {
    merchant,
    terminals: o.terminals,
    baskets: o.baskets,
    uploaded: 0,
    granted: 0,
    returned: 0,
    seconds: 0,
    basketsPerSecond: 0,
    uploadMsP50: 0,
    uploadMsP99: 0,
    rewards: 0,
    rewardValue: 0,
    points: 0,
    errors: {},
  };
  const latencies: number[] = [];
  const fail = (err: unknown) => {
    const key = err instanceof PunchcardError ? err.key : err instanceof Error ? err.message : String(err);
    summary.errors[key] = (summary.errors[key] ?? 0) + 1;
  };
  const bar = o.progress
    ? new SingleBar({
        format: 'baskets {bar} {value}/{total} | {rate}/s | errors {errors}',
        hideCursor: true,
      })
    : null;
  bar?.start(o.baskets, 0, { rate: '0', errors: 0 });

  const day = new Date();
  day.setUTCHours(0, 0, 0, 0);
  const started = performance.now();
  let issued = 0;
  const countErrors = () => Object.values(summary.errors).reduce((a, b) => a + b, 0);

  const till = async (client: PosClient, tillIndex: number) => {
    for (;;) {
      const index = issued++;
      if (index >= o.baskets) return;
      if (o.rate > 0) {
        const due = started + (index / o.rate) * 1000;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      const basketId = `S-${tillIndex + 1}-${index + 1}`;
      const basket = basketAt(next, index, o.baskets, day);
      const card = next() < o.cardShare ? cards[Math.floor(next() * cards.length)] : undefined;
      const t0 = performance.now();
      let answer: BasketResponse;
      try {
        answer = await client.uploadBasket(basketId, basket, card ? { consumerIdentToken: card } : {});
        latencies.push(performance.now() - t0);
        summary.uploaded++;
      } catch (err) {
        fail(err);
        bar?.increment(1, { errors: countErrors() });
        continue;
      }
      if (next() < o.grantShare) {
        try {
          const grant = await client.grantBasket(basketId);
          summary.granted++;
          summary.rewards += grant.Rewards.length;
          summary.rewardValue += grant.Rewards.reduce((sum, r) => sum + r.GrossRewardValue, 0);
          for (const l of grant.LoyaltyInfo)
            for (const d of l.Details) summary.points += d.NewPoints - d.PreviousPoints;
          if (next() < o.returnShare) {
            const first = basket.Positions?.[0];
            if (first) {
              await client.returnBasket(basketId, {
                ReturnId: `R-${basketId}`,
                Positions: [{ PositionId: first.PositionId, Amount: first.Amount }],
              });
              summary.returned++;
            }
          }
        } catch (err) {
          fail(err);
        }
      } else {
        summary.rewards += answer.Rewards.length;
      }
      const seconds = (performance.now() - started) / 1000;
      bar?.increment(1, {
        rate: (summary.uploaded / Math.max(seconds, 0.001)).toFixed(1),
        errors: countErrors(),
      });
    }
  };
  await Promise.all(tills.map((client, i) => till(client, i)));
  bar?.stop();

  summary.seconds = Math.round((performance.now() - started) / 10) / 100;
  summary.basketsPerSecond = Math.round((summary.uploaded / Math.max(summary.seconds, 0.001)) * 10) / 10;
  latencies.sort((a, b) => a - b);
  summary.uploadMsP50 = percentile(latencies, 50);
  summary.uploadMsP99 = percentile(latencies, 99);
  summary.rewardValue = Math.round(summary.rewardValue * 100) / 100;
  return summary;
}

export function formatSummary(s: SimulateSummary): string {
  const errors = Object.entries(s.errors)
    .map(([id, n]) => `${id}: ${n}`)
    .join(', ');
  return [
    `merchant        ${s.merchant} (${s.terminals} terminals)`,
    `baskets         ${s.uploaded} of ${s.baskets} uploaded in ${s.seconds} s: ${s.basketsPerSecond} baskets/s`,
    `upload latency  p50 ${s.uploadMsP50} ms, p99 ${s.uploadMsP99} ms`,
    `grants          ${s.granted}, returns ${s.returned}`,
    `rewards         ${s.rewards} worth ${s.rewardValue.toFixed(2)} EUR; points earned ${s.points}`,
    `errors          ${errors === '' ? 'none' : errors}`,
  ].join('\n');
}
