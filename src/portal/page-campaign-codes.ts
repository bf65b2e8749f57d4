import type { PortalLang } from '../portal-users/portal-user.store.js';
import { CODE_BATCH_MAX, CODE_LENGTH, CODE_PREFIX_MAX } from '../campaigns/campaign-codes.js';
import { type Html, html } from './html.js';
import { type PageUser, dateTime } from './layout.js';
import { type CodesPanel, REDEEMED_SHOWN } from './campaign-codes.routes.js';

/**
 * The unique codes on a campaign's page (docs/decisions.md, "Unique codes"): its batches with how
 * many codes each has redeemed and a CSV of each, a form to make a batch (owners), and the codes
 * redeemed, with when, at which terminal and outlet, in which basket.
 */

const EN = {
  title: 'Unique codes',
  help: 'Each code is good once at any of your tills: print or mail them. A till sends the code as a coupon; a return of the basket gives it back.',
  batches: 'Batches',
  noBatches: 'No codes yet: make a batch.',
  batch: 'Batch',
  prefix: 'Prefix',
  length: 'Length',
  count: 'Codes',
  redeemedCount: 'Redeemed',
  made: 'Made',
  csv: 'CSV',
  allCsv: 'All codes as CSV',
  make: 'Make codes',
  countHelp: `How many, 1 to ${CODE_BATCH_MAX.toLocaleString('en-GB')}.`,
  prefixHelp: `Optional, at most ${CODE_PREFIX_MAX} letters, digits and dashes, e.g. SPRING-.`,
  lengthHelp: `Random characters after the prefix, ${CODE_LENGTH.min} to ${CODE_LENGTH.max}, without 0/O and 1/I/L.`,
  redeemed: 'Redeemed codes',
  noneRedeemed: 'No code redeemed yet.',
  moreInCsv: `The first ${REDEEMED_SHOWN} in code order; the CSV holds all.`,
  showRedeemed: 'List (%d)',
  code: 'Code',
  when: 'When',
  terminal: 'Terminal',
  outlet: 'Outlet',
  basket: 'Basket',
};
type Key = keyof typeof EN;

const DE: Record<Key, string> = {
  title: 'Einmalcodes',
  help: 'Jeder Code gilt einmal an jeder Ihrer Kassen: drucken oder verschicken Sie sie. Die Kasse sendet den Code als Gutschein; eine Rückgabe des Einkaufs gibt ihn wieder frei.',
  batches: 'Serien',
  noBatches: 'Noch keine Codes: erzeugen Sie eine Serie.',
  batch: 'Serie',
  prefix: 'Präfix',
  length: 'Länge',
  count: 'Codes',
  redeemedCount: 'Eingelöst',
  made: 'Erzeugt',
  csv: 'CSV',
  allCsv: 'Alle Codes als CSV',
  make: 'Codes erzeugen',
  countHelp: `Wie viele, 1 bis ${CODE_BATCH_MAX.toLocaleString('de-DE')}.`,
  prefixHelp: `Optional, höchstens ${CODE_PREFIX_MAX} Buchstaben, Ziffern und Bindestriche, z. B. FRUEHLING-.`,
  lengthHelp: `Zufällige Zeichen nach dem Präfix, ${CODE_LENGTH.min} bis ${CODE_LENGTH.max}, ohne 0/O und 1/I/L.`,
  redeemed: 'Eingelöste Codes',
  noneRedeemed: 'Noch kein Code eingelöst.',
  moreInCsv: `Die ersten ${REDEEMED_SHOWN} nach Code; die CSV enthält alle.`,
  showRedeemed: 'Liste (%d)',
  code: 'Code',
  when: 'Wann',
  terminal: 'Kasse',
  outlet: 'Filiale',
  basket: 'Einkauf',
};

/** Redeemed codes shown unfolded; more are folded under their count. */
const REDEEMED_OPEN = 10;

function translate(lang: PortalLang): (key: Key) => string {
  const words = lang === 'de' ? DE : EN;
  return (key) => words[key];
}

export function codesSection(panel: CodesPanel, user: PageUser, campaignId: number): Html {
  const c = translate(user.lang);
  const when = (iso: string | null) => dateTime(iso, user.lang, user.merchant.timeZone);
  const csv = `/portal/api/v1/campaigns/${campaignId}/codes.csv`;
  const owner = user.role === 'owner';
  return html`<section class="card" aria-labelledby="codes-title" id="codes">
    <h2 id="codes-title">${c('title')}</h2>
    <p class="muted">${c('help')}</p>
    <h3>${c('batches')}</h3>
    ${
      panel.batches.length === 0
        ? html`<p class="muted">${c('noBatches')}</p>`
        : html`<div class="table-wrap">
              <table class="stack-on-phone">
                <thead>
                  <tr>
                    <th>${c('batch')}</th>
                    <th>${c('prefix')}</th>
                    <th class="num">${c('length')}</th>
                    <th class="num">${c('count')}</th>
                    <th class="num">${c('redeemedCount')}</th>
                    <th>${c('made')}</th>
                    <th>${c('csv')}</th>
                  </tr>
                </thead>
                <tbody>
                  ${panel.batches.map(
                    (b) =>
                      html`<tr>
                        <td data-label="${c('batch')}">#${b.id}</td>
                        <td data-label="${c('prefix')}"><code>${b.prefix}</code></td>
                        <td class="num" data-label="${c('length')}">${b.length}</td>
                        <td class="num" data-label="${c('count')}">${b.count}</td>
                        <td class="num" data-label="${c('redeemedCount')}">${b.redeemed}</td>
                        <td data-label="${c('made')}">${when(b.createdAt)}</td>
                        <td class="phone-first"><a href="${csv}?batchId=${b.id}" download>${c('csv')}</a></td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>
            <p><a href="${csv}" download>${c('allCsv')}</a></p>`
    }
    ${
      owner
        ? html`<form
            class="inline-form"
            data-api="POST /portal/api/v1/campaigns/${campaignId}/codeBatches"
            data-next="reload"
          >
            <label
              >${c('count')}
              <input type="number" name="count" data-type="number" min="1" max="${CODE_BATCH_MAX}" required />
              <small class="muted">${c('countHelp')}</small></label
            >
            <label
              >${c('prefix')}
              <input
                type="text"
                name="prefix"
                maxlength="${CODE_PREFIX_MAX}"
                pattern="[A-Za-z0-9][A-Za-z0-9\\-]*"
                autocapitalize="characters"
              />
              <small class="muted">${c('prefixHelp')}</small></label
            >
            <label
              >${c('length')}
              <input
                type="number"
                name="length"
                data-type="number"
                min="${CODE_LENGTH.min}"
                max="${CODE_LENGTH.max}"
                value="${CODE_LENGTH.default}"
              />
              <small class="muted">${c('lengthHelp')}</small></label
            >
            <p class="form-error" role="alert" hidden></p>
            <button type="submit">${c('make')}</button>
          </form>`
        : ''
    }
    <h3>${c('redeemed')}</h3>
    ${
      panel.redeemed.length === 0
        ? html`<p class="muted">${c('noneRedeemed')}</p>`
        : // A long list folded away, so that the definition below is not pages down on a phone.
          html`<details class="redeemed-codes" ${panel.redeemed.length > REDEEMED_OPEN ? '' : 'open'}>
            <summary>${c('showRedeemed').replace('%d', String(panel.redeemed.length))}</summary>
            <div class="table-wrap">
              <table class="stack-on-phone">
                <thead>
                  <tr>
                    <th>${c('code')}</th>
                    <th>${c('when')}</th>
                    <th>${c('terminal')}</th>
                    <th>${c('outlet')}</th>
                    <th>${c('basket')}</th>
                  </tr>
                </thead>
                <tbody>
                  ${panel.redeemed.map(
                    (r) =>
                      html`<tr>
                        <td class="url" data-label="${c('code')}"><code>${r.code}</code></td>
                        <td class="phone-first" data-label="${c('when')}">${when(r.redeemedAt)}</td>
                        <td data-label="${c('terminal')}">${r.terminalName ?? r.trackingUnitId ?? ''}</td>
                        <td data-label="${c('outlet')}">
                          ${r.outletName ?? (r.outletId === null ? '' : `#${r.outletId}`)}
                        </td>
                        <td class="url phone-wide" data-label="${c('basket')}">
                          ${
                            r.trackingUnitId !== null && r.basketId !== null
                              ? html`<a
                                  href="/portal/baskets/${encodeURIComponent(r.trackingUnitId)}/${encodeURIComponent(
                                    r.basketId,
                                  )}"
                                  >${r.basketId}</a
                                >`
                              : ''
                          }
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>
            ${panel.redeemed.length >= REDEEMED_SHOWN ? html`<p class="muted">${c('moreInCsv')}</p>` : ''}
          </details>`
    }
  </section>`;
}
