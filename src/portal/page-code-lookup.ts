import type { FoundCodeView } from '../campaigns/campaign-codes.service.js';
import type { PortalLang } from '../portal-users/portal-user.store.js';
import { type Html, html } from './html.js';
import { type PageUser, badge, dateTime } from './layout.js';
import { campaignPageTranslator } from './strings-campaign-page.js';
import { translator } from './strings.js';

/**
 * The code check on the campaigns page (docs/decisions.md, "Unique codes"): a customer says their
 * flyer's code gave nothing at the till; the merchant types it in and sees whose campaign it is,
 * whether it is unused, or when, at which till and outlet and in which basket it was redeemed.
 */

/** What a code typed into the check may be at most: the API's `code` path parameter's limit. */
export const CODE_TEXT_MAX = 80;

const EN = {
  title: 'Check a unique code',
  help: 'A customer’s code gave nothing at the till? Type it as printed; the case does not matter.',
  label: 'Code',
  check: 'Check',
  notFound: 'None of your codes reads “%s”.',
  notFoundHelp: 'Codes hold no 0, O, 1, I or L after their prefix: check the letters against the print.',
  campaign: 'Campaign',
  batch: 'Batch',
  state: 'State',
  unused: 'Unused',
  unusedHelp: 'Good once at any of your tills while the campaign runs.',
  notRunning: 'Gives nothing at the till while its campaign does not run.',
  redeemed: 'Redeemed',
  when: 'When',
  terminal: 'Terminal',
  outlet: 'Outlet',
  basket: 'Basket',
  givenBack: 'Given back',
  byReturn: 'by a return',
};
type Key = keyof typeof EN;

const DE: Record<Key, string> = {
  title: 'Einmalcode prüfen',
  help: 'Ein Code hat an der Kasse nichts gebracht? Geben Sie ihn wie gedruckt ein; Groß- und Kleinschreibung zählen nicht.',
  label: 'Code',
  check: 'Prüfen',
  notFound: 'Keiner Ihrer Codes lautet „%s“.',
  notFoundHelp:
    'Nach dem Präfix enthalten Codes weder 0, O, 1, I noch L: vergleichen Sie die Zeichen mit dem Druck.',
  campaign: 'Aktion',
  batch: 'Serie',
  state: 'Status',
  unused: 'Unbenutzt',
  unusedHelp: 'Einmal an jeder Ihrer Kassen einlösbar, solange die Aktion läuft.',
  notRunning: 'Bringt an der Kasse nichts, solange seine Aktion nicht läuft.',
  redeemed: 'Eingelöst',
  when: 'Wann',
  terminal: 'Kasse',
  outlet: 'Filiale',
  basket: 'Einkauf',
  givenBack: 'Freigegeben',
  byReturn: 'durch eine Rückgabe',
};

function translate(lang: PortalLang): (key: Key) => string {
  const words = lang === 'de' ? DE : EN;
  return (key) => words[key];
}

/** A campaign's state as the campaigns list names it. */
type CampaignState = 'scheduled' | 'live' | 'paused' | 'ended';

/** What the check found for the code typed: the code, or null when none of the merchant's reads so. */
export interface CodeCheck {
  readonly typed: string;
  readonly found: FoundCodeView | null;
  /** The code's campaign's state now; null when no code was found. */
  readonly campaignState: CampaignState | null;
}

/** The campaign's state in the words and colours of the campaigns list. */
function stateBadge(state: CampaignState, user: PageUser): Html {
  const text =
    state === 'paused'
      ? campaignPageTranslator(user.lang, { currency: '', timeZone: '' })('paused')
      : translator(user.lang)(state);
  return badge(state, text);
}

function foundFacts(
  f: FoundCodeView,
  state: CampaignState | null,
  user: PageUser,
  c: (key: Key) => string,
): Html {
  const when = (iso: string | null) => dateTime(iso, user.lang, user.merchant.timeZone);
  const basket =
    f.trackingUnitId !== null && f.basketId !== null
      ? html`<a
          href="/portal/baskets/${encodeURIComponent(f.trackingUnitId)}/${encodeURIComponent(f.basketId)}"
          >${f.basketId}</a
        >`
      : '';
  return html`<dl class="facts" data-code="${f.code}">
    <dt>${c('label')}</dt>
    <dd><code>${f.code}</code></dd>
    <dt>${c('campaign')}</dt>
    <dd>
      <a href="/portal/campaigns/${f.campaignId}#codes">${f.campaignName}</a>
      ${state === null ? '' : stateBadge(state, user)}
    </dd>
    <dt>${c('batch')}</dt>
    <dd>#${f.batchId}</dd>
    <dt>${c('state')}</dt>
    <dd>
      ${f.redeemedAt === null ? badge('yes', c('unused')) : badge('scheduled', c('redeemed'))}
      ${
        f.redeemedAt !== null
          ? ''
          : html`<small class="muted"
              >${c(state === null || state === 'live' ? 'unusedHelp' : 'notRunning')}</small
            >`
      }
    </dd>
    ${
      f.redeemedAt === null
        ? ''
        : html`<dt>${c('when')}</dt>
            <dd>${when(f.redeemedAt)}</dd>
            <dt>${c('terminal')}</dt>
            <dd>${f.terminalName ?? f.trackingUnitId ?? ''}</dd>
            <dt>${c('outlet')}</dt>
            <dd>${f.outletName ?? (f.outletId === null ? '' : `#${f.outletId}`)}</dd>
            <dt>${c('basket')}</dt>
            <dd class="url">${basket}</dd>`
    }
    ${
      f.givenBackAt === null
        ? ''
        : html`<dt>${c('givenBack')}</dt>
            <dd>${when(f.givenBackAt)} <small class="muted">${c('byReturn')}</small></dd>`
    }
  </dl>`;
}

/** The check's form, and what it found when a code was typed. */
export function codeCheckSection(check: CodeCheck | null, user: PageUser): Html {
  const c = translate(user.lang);
  return html`<section class="card" aria-labelledby="code-check-title" id="code-check">
    <h2 id="code-check-title">${c('title')}</h2>
    <p class="muted">${c('help')}</p>
    <form class="inline-form" method="get" action="/portal/campaigns#code-check" role="search">
      <label
        >${c('label')}
        <input
          type="search"
          name="code"
          value="${check?.typed ?? ''}"
          maxlength="${CODE_TEXT_MAX}"
          autocomplete="off"
          autocapitalize="characters"
          spellcheck="false"
          required
      /></label>
      <button type="submit">${c('check')}</button>
    </form>
    ${
      check === null
        ? ''
        : check.found === null
          ? html`<div role="status">
              <p>${c('notFound').replace('%s', check.typed)}</p>
              <p class="muted">${c('notFoundHelp')}</p>
            </div>`
          : html`<div role="status">${foundFacts(check.found, check.campaignState, user, c)}</div>`
    }
  </section>`;
}
