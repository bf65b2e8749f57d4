/**
 * `npm run docs:performance-chart`: draws docs/performance-history.csv, every figure the benchmark
 * rows of docs/performance.md reached machine by machine, into docs/performance-history.png: one
 * panel per row, its target as a dashed line, each run a dot and each median a diamond, green where
 * it met the target and red where it missed. Drawn by Chart.js (the portal's charts) in Chromium's
 * headless shell (Debian's package chromium-headless-shell; CHROMIUM_PATH names another). Other
 * files: `tsx scripts/performance-chart.ts <figures.csv> <chart.png>`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { chromium } from 'playwright-core';

const CSV = process.argv[2] ?? 'docs/performance-history.csv';
const PNG = process.argv[3] ?? 'docs/performance-history.png';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell';

/** Each row of the targets' table: its title, its target and which side of it meets it. */
const ROWS = {
  orders_one: { title: 'Checkout order, one position (of the baseline)', target: 0.7, meets: 'atLeast' },
  orders_six: { title: 'Checkout order, six positions (of the baseline)', target: 0.7, meets: 'atLeast' },
  upload: { title: 'Basket upload, 100 campaigns (of the baseline)', target: 1.2, meets: 'atLeast' },
  engine: { title: 'Engine, 10,000 campaigns against 100 (per CPU second)', target: 0.5, meets: 'atLeast' },
  cards_distinct: { title: 'Card withdrawals, 1,000 cards (of the baseline)', target: 1.0, meets: 'atLeast' },
  cards_hot: { title: 'Card withdrawals, one hot card (of the baseline)', target: 0.8, meets: 'atLeast' },
  sortiment_first_s: { title: 'Sortiment, 100,000 articles: first upload (s)', target: 4, meets: 'below' },
  sortiment_change_s: { title: 'Sortiment: 1 % changed (s)', target: 1.5, meets: 'below' },
  sortiment_rss_mib: { title: 'Sortiment: peak RSS (MiB)', target: 400, meets: 'below' },
  suite_min: { title: '`npm test` on two cores, fresh clone (minutes)', target: 10, meets: 'below' },
} as const;
type RowId = keyof typeof ROWS;

interface Figure {
  row: RowId;
  atMs: number;
  machine: string;
  figure: number;
  kind: 'run' | 'median';
}

/** The file's figures; a line that is not one stops the script, naming it. */
function readFigures(text: string): Figure[] {
  const [header, ...lines] = text.trim().split('\n');
  if (header !== 'row,at_utc,machine,figure,kind') throw new Error(`${CSV}: unexpected header "${header}"`);
  return lines.map((line, i) => {
    const fields = line.split(',');
    const [row, at, machine, figure, kind] = fields;
    const atMs = Date.parse(at ?? '');
    const value = Number(figure);
    if (
      fields.length !== 5 ||
      !(row && Object.hasOwn(ROWS, row)) ||
      !Number.isFinite(atMs) ||
      !machine ||
      !Number.isFinite(value) ||
      (kind !== 'run' && kind !== 'median')
    ) {
      throw new Error(`${CSV}:${i + 2}: not a figure: "${line}"`);
    }
    return { row: row as RowId, atMs, machine, figure: value, kind };
  });
}

/** Runs in the page: one Chart.js scatter per row, in the grid's canvases. */
function draw(
  panels: { title: string; target: number; meets: string; points: Figure[] }[],
  span: { from: number; to: number },
): void {
  type Label = { fillStyle?: string; datasetIndex?: number };
  const Chart = (
    globalThis as unknown as {
      Chart: (new (c: unknown, o: unknown) => unknown) & {
        defaults: { plugins: { legend: { labels: { generateLabels(chart: unknown): Label[] } } } };
      };
    }
  ).Chart;
  // The legend's marks in grey: the points' colours say met or missed, not which series.
  const greyLabels = (chart: unknown) =>
    Chart.defaults.plugins.legend.labels
      .generateLabels(chart)
      .map((l) => (l.datasetIndex === 2 ? l : { ...l, fillStyle: '#8a8a8a' }));
  // The page's document, in the few words used here (the scripts are typed without the DOM's).
  interface Element {
    appendChild(child: Element): void;
    width: number;
    height: number;
  }
  const document = (
    globalThis as unknown as {
      document: { getElementById(id: string): Element; createElement(tag: string): Element };
    }
  ).document;
  const grid = document.getElementById('grid');
  const day = (ms: number) => new Date(ms).toISOString().slice(5, 10);
  for (const p of panels) {
    const box = document.createElement('div');
    const canvas = document.createElement('canvas');
    canvas.width = 600;
    canvas.height = 300;
    box.appendChild(canvas);
    grid.appendChild(box);
    const [lo, hi] = [span.from, span.to];
    const met = (v: number) => (p.meets === 'atLeast' ? v >= p.target : v < p.target);
    const colour = (v: number) => (met(v) ? '#1b7f3b' : '#b3261e');
    const series = (kind: string) =>
      p.points.filter((f) => f.kind === kind).map((f) => ({ x: f.atMs, y: f.figure }));
    new Chart(canvas, {
      type: 'scatter',
      data: {
        datasets: [
          {
            label: 'run',
            data: series('run'),
            pointRadius: 3,
            pointBackgroundColor: (c: { raw?: { y: number } }) => colour(c.raw?.y ?? 0),
            pointBorderWidth: 0,
          },
          {
            label: 'median of a machine’s runs',
            data: series('median'),
            pointStyle: 'rectRot',
            pointRadius: 6,
            pointBackgroundColor: (c: { raw?: { y: number } }) => colour(c.raw?.y ?? 0),
            pointBorderColor: '#1a1a1a',
            pointBorderWidth: 1,
          },
          {
            label: `target ${p.meets === 'atLeast' ? '≥' : '<'} ${p.target}`,
            type: 'line',
            data: [
              { x: lo, y: p.target },
              { x: hi, y: p.target },
            ],
            borderColor: '#4a4a4a',
            borderDash: [6, 4],
            borderWidth: 1.5,
            pointRadius: 0,
          },
        ],
      },
      options: {
        animation: false,
        responsive: false,
        plugins: {
          title: { display: true, text: p.title, font: { size: 14 } },
          subtitle: { display: true, text: 'green: met its target · red: missed', color: '#4a4a4a' },
          legend: { labels: { boxWidth: 10, font: { size: 11 }, generateLabels: greyLabels } },
        },
        scales: {
          x: {
            type: 'linear',
            min: lo,
            max: hi,
            ticks: { stepSize: 86_400_000, callback: (v: number) => day(v) },
          },
          y: { beginAtZero: true },
        },
      },
    });
  }
}

/** From the midnight (UTC) before the first figure to the one after the last: the panels' common days. */
function daysAround(figures: readonly Figure[]): { from: number; to: number } {
  const DAY = 86_400_000;
  const times = figures.map((f) => f.atMs);
  return { from: Math.floor(Math.min(...times) / DAY) * DAY, to: Math.ceil(Math.max(...times) / DAY) * DAY };
}

async function main(): Promise<void> {
  const figures = readFigures(readFileSync(CSV, 'utf8'));
  console.log(`${CSV}: ${figures.length} figures of ${new Set(figures.map((f) => f.row)).size} rows`);
  const panels = (Object.keys(ROWS) as RowId[])
    .map((id) => ({ ...ROWS[id], points: figures.filter((f) => f.row === id) }))
    .filter((p) => p.points.length > 0);
  const chartJs = join(dirname(createRequire(import.meta.url).resolve('chart.js')), 'chart.umd.min.js');
  console.log(`drawing ${panels.length} panels in ${CHROMIUM}`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1240, height: 400 }, deviceScaleFactor: 1 });
    await page.setContent(
      `<!doctype html><html><body style="margin:0;background:#fff;font-family:sans-serif">
        <div id="grid" style="display:grid;grid-template-columns:600px 600px;gap:12px;padding:12px"></div>
      </body></html>`,
    );
    await page.addScriptTag({ path: chartJs });
    await page.evaluate(
      ({ source, panels: p, span: s }) => {
        // The drawing function crosses into the page as its source text (with the helper that
        // names functions, which the TypeScript runner's output calls).
        (0, eval)(`var __name = (f) => f; (${source})`)(p, s);
      },
      { source: draw.toString(), panels, span: daysAround(figures) },
    );
    await page.locator('#grid').screenshot({ path: PNG });
    console.log(`wrote ${PNG}`);
  } finally {
    await browser.close();
  }
}

await main();
