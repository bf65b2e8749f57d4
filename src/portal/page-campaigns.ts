import { type CodeCheck, codeCheckSection } from './page-code-lookup.js';
import type { TSchema } from 'typebox';
import { CampaignBodySchema, SchemeBodySchema } from '../campaigns/rule.schemas.js';
import { currencyExponent } from '../shared/money.js';
import { type Html, html, jsonBlock } from './html.js';
import { type PageUser, badge, dateTime } from './layout.js';
import { campaignFields, schemeFields, selectorLists } from './page-rule-form.js';
import type { TierSchemeChoice } from './rule-form-widgets.js';
import { codeWord } from './code-words.js';
import { translator } from './strings.js';
import { type CampaignFigures, type SchemeFigures, figuresSection } from './page-rule-figures.js';
import { ruleFormTranslator } from './strings-rule-form.js';
import {
  EMPTY_CAMPAIGN,
  EMPTY_SCHEME,
  type TemplateKey,
  fieldMessagesScript,
  type BudgetFields,
  budgetSection,
  tierLimitSection,
  statePanel,
  templateBar,
  templateDefinition,
} from './page-campaign-extras.js';
import { type RecentBasketView, type TillOption, dryRunBasketFields } from './page-dry-run-basket.js';
import { campaignPageTranslator } from './strings-campaign-page.js';
import { dryRunWords } from './strings-dry-run.js';
import { dryRunRecentSection } from './page-dry-run-recent.js';
import type { CodesPanel } from './campaign-codes.routes.js';
import { codesSection } from './page-campaign-codes.js';

export interface SelectorArticle {
  plu: string;
  name: string;
  groupId: string | null;
  groupName: string | null;
}

export type RuleKindPage = 'campaign' | 'scheme';

/** What the editor shows besides the definition: a template chosen, tills and baskets for the dry run, figures. */
export interface EditorExtras {
  template: TemplateKey | null;
  terminals: TillOption[];
  recent: RecentBasketView[];
  figures: CampaignFigures | SchemeFigures | null;
  /** A campaign with unique codes: its batches and redeemed codes. */
  codes?: CodesPanel | null;
  /** A campaign limited to status tiers: the name of the scheme of its tiers. */
  tierSchemeName?: string | null;
  /** The merchant's loyalty schemes, for the limit to status tiers and the dry run's tier picker. */
  schemes?: TierSchemeChoice[];
  nowMs: number;
}

type TierLimitView = { schemeId: number; names: string[] } | null | undefined;

export interface RuleListing {
  id: number;
  name: string;
  type?: string;
  version: number;
  state: 'scheduled' | 'live' | 'paused' | 'ended';
  validFrom?: string | null;
  validTo?: string | null;
  updatedAt: string;
  /** A campaign that takes unique codes (docs/decisions.md, "Unique codes"). */
  uniqueCodes?: boolean;
}

interface SchemaNode {
  type?: string;
  description?: string;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  const?: unknown;
  required?: string[];
}

/** Every field of a body schema with its explanation, from the schema the server validates with. */
function fieldList(schema: TSchema): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  const walk = (node: SchemaNode, path: string, required: boolean) => {
    const options = node.anyOf?.filter((n) => n.type !== 'null') ?? [];
    const consts = options.filter((n) => n.const !== undefined).map((n) => JSON.stringify(n.const));
    const inner = options.length === 1 ? options[0] : undefined;
    const kind = consts.length > 0 ? consts.join(' | ') : (node.type ?? inner?.type ?? '');
    const text = [
      node.description ?? inner?.description ?? '',
      kind ? `(${kind}${required ? ', required' : ''})` : '',
    ]
      .filter(Boolean)
      .join(' ');
    if (path) out.push({ path, text });
    const target = inner ?? node;
    if (target.properties) {
      for (const [name, child] of Object.entries(target.properties)) {
        walk(child, path ? `${path}.${name}` : name, target.required?.includes(name) ?? false);
      }
    }
    if (target.items?.properties) walk(target.items, `${path}[]`, false);
  };
  walk(schema as unknown as SchemaNode, '', true);
  return out;
}

export function ruleListBody(
  campaigns: RuleListing[],
  schemes: RuleListing[],
  user: PageUser,
  check: CodeCheck | null,
  baskets: ReadonlyMap<number, number> = new Map(),
): Html {
  const t = translator(user.lang);
  const pausedWord = campaignPageTranslator(user.lang, { currency: '', timeZone: '' })('paused');
  // Validity as the rest of the portal shows times: in the user's language and the merchant's zone.
  const when = (iso: string | null | undefined) =>
    iso ? dateTime(iso, user.lang, user.merchant.timeZone) : '—';
  const table = (rows: RuleListing[], segment: string, withType: boolean) =>
    rows.length === 0
      ? html`<p class="muted empty">${t(withType ? 'emptyCampaigns' : 'emptySchemes')}</p>`
      : html`<div class="table-wrap">
          <table id="${segment}-list" class="stack-on-phone">
            <thead>
              <tr>
                <th>${t('name')}</th>
                ${withType ? html`<th>${t('type')}</th>` : ''}
                <th>${t('state')}</th>
                <th>${t('from')}</th>
                <th>${t('to')}</th>
                <th class="num">${t('version')}</th>
                ${withType ? html`<th class="num">${t('baskets30')}</th>` : ''}
              </tr>
            </thead>
            <tbody>
              ${rows.map(
                (r) =>
                  html`<tr>
                    <td data-label="${t('name')}"><a href="/portal/${segment}/${r.id}">${r.name}</a></td>
                    ${withType ? html`<td data-label="${t('type')}">${codeWord(user.lang, r.type ?? '')}</td>` : ''}
                    <td class="phone-first" data-label="${t('state')}">
                      ${badge(r.state, r.state === 'paused' ? pausedWord : t(r.state))}
                    </td>
                    <td data-label="${t('from')}">${when(r.validFrom)}</td>
                    <td data-label="${t('to')}">${when(r.validTo)}</td>
                    <td class="num" data-label="${t('version')}">${r.version}</td>
                    ${withType ? basketsCell(r, baskets.get(r.id) ?? 0) : ''}
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>`;
  // A live campaign no granted basket used: the way to why (docs/decisions.md, "Why a campaign did not apply").
  const basketsCell = (r: RuleListing, n: number) =>
    html`<td class="num" data-label="${t('baskets30')}">
      ${n}${
        r.state === 'live' && n === 0
          ? html` · <a href="/portal/campaigns/${r.id}#dry-last-title">${t('whyNone')}</a>`
          : ''
      }
    </td>`;
  const owner = user.role === 'owner';
  return html` <div class="actions card">
      ${
        owner
          ? html`<a class="button" href="/portal/campaigns/new">${t('newCampaign')}</a>
              <a class="button" href="/portal/loyaltySchemes/new">${t('newScheme')}</a>`
          : html`<p class="muted">${t('ownersOnly')}</p>`
      }
    </div>
    ${
      // The code check where a campaign takes unique codes (or a check was asked for).
      check !== null || campaigns.some((c) => c.uniqueCodes === true) ? codeCheckSection(check, user) : ''
    }
    <h2>${t('campaigns')}</h2>
    ${table(campaigns, 'campaigns', true)}
    <h2>${t('loyaltySchemes')}</h2>
    ${table(schemes, 'loyaltySchemes', false)}`;
}

/** The editor: the form of the definition (its JSON as the advanced view), and the dry run beside it. */
export function ruleEditorBody(
  kind: RuleKindPage,
  existing: (Record<string, unknown> & RuleListing) | null,
  user: PageUser,
  outlets: { id: number; name: string }[],
  articles: SelectorArticle[],
  extras: EditorExtras,
): Html {
  const t = translator(user.lang);
  const { currency, timeZone } = user.merchant;
  const f = ruleFormTranslator(user.lang, { currency, timeZone });
  const dryWords = campaignPageTranslator(user.lang, { currency, timeZone });
  const segment = kind === 'campaign' ? 'campaigns' : 'loyaltySchemes';
  const owner = user.role === 'owner';
  const definition = existing
    ? strip(existing)
    : kind === 'campaign'
      ? extras.template === null
        ? EMPTY_CAMPAIGN
        : templateDefinition(extras.template, user.lang, articles)
      : EMPTY_SCHEME;
  const action = existing ? `PUT /portal/api/v1/${segment}/${existing.id}` : `POST /portal/api/v1/${segment}`;
  const fields = fieldList(kind === 'campaign' ? CampaignBodySchema : SchemeBodySchema);
  const formContext = { lang: user.lang, currency, timeZone, outlets, schemes: extras.schemes };
  const inputs =
    kind === 'campaign'
      ? campaignFields(formContext, definition as Record<string, unknown>)
      : schemeFields(formContext, definition as Record<string, unknown>);
  return html`
    ${
      existing
        ? html`<p>
            ${t('version')} ${existing.version} ·
            <span class="muted">${dateTime(existing.updatedAt, user.lang, user.merchant.timeZone)}</span>
          </p>`
        : ''
    }
    ${owner ? '' : html`<p class="card" role="note">${t('ownersOnly')}</p>`}
    ${existing ? statePanel(segment, existing.id, existing.state, user, existing.channels as string[] | null | undefined) : ''}
    ${
      existing && kind === 'campaign'
        ? tierLimitSection(existing.tiers as TierLimitView, extras.tierSchemeName ?? null, user)
        : ''
    }
    ${existing && kind === 'campaign' ? budgetSection(existing as BudgetFields, user) : ''}
    ${existing && extras.figures ? figuresSection(extras.figures, user, 10 ** currencyExponent(currency)) : ''}
    ${existing && extras.codes ? codesSection(extras.codes, user, existing.id) : ''}
    ${!existing && kind === 'campaign' && owner ? templateBar(user, extras.template) : ''}
    ${fieldMessagesScript(user)}
    <div class="editor">
      <section class="card" aria-labelledby="def-title">
        <h2 id="def-title">${f('formTitle')}</h2>
        <p class="muted" id="def-help">${f('formHelp')}</p>
        <form
          id="rule-form"
          data-api="${action}"
          data-next="/portal/${segment}/{id}"
          data-exponent="${currencyExponent(currency)}"
          aria-describedby="def-help"
          novalidate
        >
          <fieldset class="plain" ${owner ? '' : html`disabled`}>
            <legend class="skip">${f('formTitle')}</legend>
            ${inputs}
          </fieldset>
          <textarea data-body hidden aria-hidden="true" tabindex="-1"></textarea>
          <p class="form-error" role="alert" hidden></p>
          ${owner ? html`<button type="submit">${t('save')}</button>` : ''}
        </form>
        ${selectorLists(articles)}
        <details id="rule-advanced">
          <summary>${f('advanced')}</summary>
          <form id="rule-json-form" data-api="${action}" data-next="/portal/${segment}/{id}">
            <p class="muted" id="json-help">${f('advancedHelp')}</p>
            <label for="rule-definition">${t('definition')}</label>
            <textarea
              id="rule-definition"
              data-body
              rows="18"
              aria-describedby="json-help"
              spellcheck="false"
              ${owner ? '' : html`readonly`}
            >
${JSON.stringify(definition, null, 2)}</textarea>
            <p class="form-error" role="alert" hidden></p>
            ${owner ? html`<button type="submit" class="secondary">${f('saveJson')}</button>` : ''}
          </form>
          <h3>${t('fields')}</h3>
          <dl class="fields">
            ${fields.map(
              (x) =>
                html`<dt>${x.path}</dt>
                  <dd>${x.text}</dd>`,
            )}
          </dl>
        </details>
      </section>
      <section class="card" aria-labelledby="dry-title">
        <h2 id="dry-title">${t('dryRun')}</h2>
        <p class="muted" id="dry-help">${t('dryRunHelp')}</p>
        <form
          id="dry-run"
          data-api="POST /portal/api/v1/dryRun"
          data-next="dry-run"
          data-kind="${kind}"
          ${existing ? html`data-replaces="${existing.id}"` : ''}
        >
          ${dryRunBasketFields(
            user,
            extras.terminals,
            extras.recent,
            articles,
            extras.nowMs,
            kind === 'campaign' ? extras.schemes : [],
          )}
          <div class="actions">
            <label class="check"><input type="checkbox" id="dry-live" /> ${t('includeLive')}</label>
            <button type="submit">${t('tryIt')}</button>
          </div>
          <p class="form-error" role="alert" hidden></p>
        </form>
        <div
          id="dry-result"
          hidden
          tabindex="-1"
          aria-live="polite"
          data-stacked="${dryWords('dryStacked')}"
          data-held-back="${dryWords('dryHeldBack')}"
          data-stacks="${dryWords('dryStacks')}"
        >
          <h3>${t('rewards')}</h3>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>${t('position')}</th>
                  <th>${t('name')}</th>
                  <th class="num">${t('reward')}</th>
                </tr>
              </thead>
              <tbody data-rewards></tbody>
            </table>
          </div>
          <h3>${t('why')}</h3>
          <div class="table-wrap">
            <table class="stack-on-phone">
              <thead>
                <tr>
                  <th>${t('campaigns')}</th>
                  <th>${t('applied')}</th>
                  <th>${t('why')}</th>
                </tr>
              </thead>
              <tbody data-why></tbody>
            </table>
          </div>
          <ul class="muted" data-loyalty hidden></ul>
          ${jsonBlock('dry-words', dryRunWords(user.lang, currency))}
        </div>
        ${dryRunRecentSection(user.lang, currency, kind)}
      </section>
    </div>
  `;
}

/** The definition without the record's bookkeeping (what PUT takes). */
function strip(record: Record<string, unknown>): Record<string, unknown> {
  const {
    id: _id,
    version: _v,
    endedAt: _e,
    createdAt: _c,
    updatedAt: _u,
    state: _s,
    pausedAt: _p,
    budgetRemaining: _b,
    ...definition
  } = record;
  return definition;
}
