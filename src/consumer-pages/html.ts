import { createHash } from 'node:crypto';

/**
 * Server-rendered pages for people (the receipt and the consumer portal): escaping, one layout
 * with a style sheet that reads on a phone, prints cleanly and keeps WCAG AA contrast.
 */

/** Text for HTML content and attribute values. */
export function esc(value: unknown): string {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A tagged template whose substitutions are escaped unless they are `Raw`. */
export class Raw {
  constructor(readonly html: string) {}
  toString(): string {
    return this.html;
  }
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Raw {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    const part = Array.isArray(v)
      ? v.map((x) => (x instanceof Raw ? x.html : esc(x))).join('')
      : v instanceof Raw
        ? v.html
        : v === null || v === undefined || v === false
          ? ''
          : esc(v);
    out += part + (strings[i + 1] ?? '');
  });
  return new Raw(out);
}

/** The pages' one style sheet, served as a file (`/me/pages.css`): the pages' policy allows no inline style. */
export const STYLE = `
:root { color-scheme: light; --ink: #1a1a1a; --muted: #4a4a4a; --line: #c8c8c8; --accent: #0b5394; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #f4f4f4; }
main { max-width: 40rem; margin: 0 auto; padding: 1rem; background: #fff; min-height: 100vh; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; } h2 { font-size: 1.15rem; margin: 1.5rem 0 .5rem; }
p.meta, .muted { color: var(--muted); margin: 0; }
table { width: 100%; border-collapse: collapse; margin: .5rem 0; }
th, td { text-align: left; padding: .35rem .25rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; } td.num, th.num { text-align: right; white-space: nowrap; }
tr.total td { font-weight: 700; border-top: 2px solid var(--ink); }
tr.included td { font-size: .875rem; color: var(--muted); }
.props { display: block; font-size: .875rem; color: var(--muted); }
.discount { color: #8a1c1c; }
a { color: var(--accent); } a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible { outline: 3px solid #f0b400; outline-offset: 2px; }
.actions { display: flex; gap: .75rem; flex-wrap: wrap; margin: 1rem 0; }
.button, button { display: inline-block; padding: .6rem 1rem; border: 1px solid var(--accent); border-radius: .4rem; background: var(--accent); color: #fff; font: inherit; text-decoration: none; cursor: pointer; min-height: 44px; }
.button.secondary, button.secondary { background: #fff; color: var(--accent); }
label { display: block; font-weight: 600; margin: .75rem 0 .25rem; }
input[type=email] { width: 100%; padding: .6rem; font: inherit; border: 1px solid var(--muted); border-radius: .4rem; }
input[type=date] { padding: .55rem; font: inherit; border: 1px solid var(--muted); border-radius: .4rem; min-height: 44px; }
select { padding: .55rem; font: inherit; border: 1px solid var(--muted); border-radius: .4rem; min-height: 44px; background: #fff; }
form.until { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem .75rem; margin: .75rem 0; }
form.until label { flex-basis: 100%; margin: 0; }
.switch { display: flex; align-items: center; gap: .5rem; font-weight: 400; }
.switch input { width: 1.25rem; height: 1.25rem; }
nav.top { display: flex; justify-content: space-between; align-items: center; gap: 1rem; flex-wrap: wrap; margin-bottom: 1rem; }
.notice { padding: .75rem; border-left: 4px solid var(--accent); background: #eef4fa; margin: 1rem 0; }
address.issuer { font-style: normal; color: var(--muted); margin: 0 0 .5rem; }
td, p.meta, address.issuer { overflow-wrap: anywhere; }
table.movements td:first-child, td.date { white-space: nowrap; }
td.num .after { display: block; white-space: normal; font-size: .875rem; }
@media print {
  @page { margin: 12mm; }
  body { background: #fff; font-size: 11pt; line-height: 1.35; }
  main { max-width: none; padding: 0; min-height: 0; }
  h2 { margin: .9rem 0 .3rem; break-after: avoid; }
  th, td { padding: .2rem .25rem; }
  tr { break-inside: avoid; }
  a { color: inherit; text-decoration: none; }
  .actions, nav.top form { display: none; }
  .notice { border: 1px solid var(--ink); border-left-width: 4px; background: none; }
}
/* A receipt printer's roll (80 mm, some 72 mm printable) and the narrowest screens: one column, small type. */
@media print and (max-width: 100mm), screen and (max-width: 320px) {
  @page { margin: 2mm 3mm; }
  body { font-size: 9pt; line-height: 1.3; }
  main { padding: 0; }
  h1 { font-size: 12pt; text-align: center; } h2 { font-size: 10pt; margin: .6rem 0 .2rem; }
  address.issuer, p.meta { text-align: center; }
  table { margin: .2rem 0; }
  th, td { padding: .15rem .1rem; }
  .props { font-size: 8pt; }
  .notice { padding: .3rem; margin: .4rem 0; }
}
`;

/** Where the style sheet is served; the version changes with its text, so a browser may keep it. */
export const STYLESHEET_PATH = '/me/pages.css';
export const STYLESHEET_VERSION = createHash('sha256').update(STYLE).digest('hex').slice(0, 12);
const STYLESHEET_URL = `${STYLESHEET_PATH}?v=${STYLESHEET_VERSION}`;

export function page(title: string, lang: string, body: Raw, extraHead: Raw = new Raw('')): string {
  return `<!doctype html>
<html lang="${esc(lang)}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>${esc(title)}</title><link rel="stylesheet" href="${STYLESHEET_URL}">${extraHead.html}</head>
<body><main>${body.html}</main></body></html>`;
}
