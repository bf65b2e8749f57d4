import type { PortalLang } from '../portal-users/portal-user.store.js';
import { currencyExponent, majorToMinor, minorToMajorText } from '../shared/money.js';
import { parseInstant } from '../shared/time.js';
import { type Html, html } from './html.js';
import { type RuleFormKey, type RuleFormTranslate, ruleFormTranslator } from './strings-rule-form.js';

/**
 * The inputs of the campaign and loyalty-scheme form. data-path names the field of the document an
 * input fills, data-kind how its text is read (portal-assets/rule-form.js reads them), data-when
 * the value of another field for which it is shown.
 */

export interface RuleFormContext {
  lang: PortalLang;
  currency: string;
  timeZone: string;
  outlets: { id: number; name: string }[];
  /** The merchant's loyalty schemes, for a campaign's limit to status tiers (rule-form-tier-limit.ts). */
  schemes?: TierSchemeChoice[];
}

/** A loyalty scheme as the campaign form offers it for a limit to status tiers. */
export interface TierSchemeChoice {
  id: number;
  name: string;
  /** Its tiers' names, in order; none: it has no status tiers. */
  tiers: string[];
  /** Ended (or past its validity): not offered. */
  ended: boolean;
}

export interface Ctx extends RuleFormContext {
  t: RuleFormTranslate;
  exponent: number;
  next: () => string;
}

export type Doc = Record<string, unknown>;
export type Kind = 'text' | 'int' | 'decimal' | 'money' | 'datetime' | 'time';

const INPUT_TYPE: Record<Kind, string> = {
  text: 'text',
  int: 'text',
  decimal: 'text',
  money: 'text',
  datetime: 'datetime-local',
  // Text, not a time input: the end of the day is 24:00, which a browser's time input cannot hold.
  time: 'text',
};

/** A labelled field with its explanation below it; `when` shows it only for some values of another field. */
export function field(
  ctx: Ctx,
  key: RuleFormKey,
  control: (id: string, help: string) => Html,
  when?: string,
): Html {
  const id = ctx.next();
  const help = `${id}-help`;
  return html`<div class="field" ${when ? html`data-when="${when}"` : ''}>
    <label for="${id}">${ctx.t(key)}</label>
    ${control(id, help)}
    <p class="help" id="${help}">${ctx.t(`${key}Help` as RuleFormKey)}</p>
  </div>`;
}

export function input(
  ctx: Ctx,
  path: string,
  key: RuleFormKey,
  kind: Kind,
  value: unknown,
  when?: string,
): Html {
  const numeric = kind === 'int' || kind === 'decimal' || kind === 'money';
  return field(
    ctx,
    key,
    (id, help) =>
      html`<input
        id="${id}"
        type="${INPUT_TYPE[kind]}"
        data-path="${path}"
        data-kind="${kind}"
        ${numeric ? html`inputmode="${kind === 'int' ? 'numeric' : 'decimal'}"` : ''}
        ${kind === 'time' ? html`placeholder="HH:MM" maxlength="5" size="6"` : ''}
        aria-describedby="${help}"
        value="${display(ctx, kind, value)}"
      />`,
    when,
  );
}

/** A stored value as the input shows it: money with the currency's decimals, times in the merchant's zone. */
export function display(ctx: Ctx, kind: Kind, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (kind === 'money') {
    const minor = majorToMinor(value as number, ctx.exponent);
    return minor === null ? String(value) : minorToMajorText(minor, ctx.exponent);
  }
  if (kind === 'datetime') {
    const instant = parseInstant(String(value), ctx.timeZone);
    if (!instant) return '';
    const local = new Intl.DateTimeFormat('sv-SE', {
      timeZone: ctx.timeZone,
      dateStyle: 'short',
      timeStyle: 'short',
    }).format(new Date(instant.utcMs));
    return local.replace(' ', 'T');
  }
  return String(value);
}

/** A choice of options; `kind` int sends the chosen value as a number (an id). */
export function select(
  ctx: Ctx,
  path: string,
  key: RuleFormKey,
  options: [string, string][],
  value: unknown,
  when?: string,
  kind: 'text' | 'int' = 'text',
): Html {
  return field(
    ctx,
    key,
    (id, help) =>
      html`<select id="${id}" data-path="${path}" data-kind="${kind}" aria-describedby="${help}">
        ${options.map(
          ([v, label]) =>
            html`<option value="${v}" ${v === (value ?? '') ? html`selected` : ''}>${label}</option>`,
        )}
      </select>`,
    when,
  );
}

export function check(ctx: Ctx, path: string, key: RuleFormKey, value: unknown, when?: string): Html {
  const id = ctx.next();
  return html`<div class="field check" ${when ? html`data-when="${when}"` : ''}>
    <input
      type="checkbox"
      id="${id}"
      data-path="${path}"
      data-kind="flag"
      aria-describedby="${id}-help"
      ${value === true ? html`checked` : ''}
    />
    <label for="${id}">${ctx.t(key)}</label>
    <p class="help" id="${id}-help">${ctx.t(`${key}Help` as RuleFormKey)}</p>
  </div>`;
}

/**
 * Boxes to tick, sent as the list of the ticked values (none ticked: the field is left out); `when`
 * shows it only for some values of another field, as `field` does.
 */
export function set(
  ctx: Ctx,
  path: string,
  key: RuleFormKey,
  options: [string | number, string][],
  chosen: unknown,
  itemKind: 'int' | 'text',
  when?: string,
): Html {
  const id = ctx.next();
  const picked = new Set((Array.isArray(chosen) ? chosen : []).map(String));
  return html`<fieldset ${groupAttributes('set', path, id, when)}>
    <legend>${ctx.t(key)}</legend>
    ${options.map(([v, label]) => {
      const box = ctx.next();
      return html`<span class="check"
        ><input
          type="checkbox"
          id="${box}"
          value="${v}"
          data-item="${itemKind}"
          ${picked.has(String(v)) ? html`checked` : ''}
        /><label for="${box}">${label}</label></span
      >`;
    })}
    <p class="help" id="${id}-help">${ctx.t(`${key}Help` as RuleFormKey)}</p>
  </fieldset>`;
}

/** One of several members: the select names the member, the input its value (a discount, a selector). */
export function keyed(
  ctx: Ctx,
  path: string,
  labels: [RuleFormKey, RuleFormKey],
  options: RuleFormKey[],
  current: Doc | undefined,
  valueKinds: Partial<Record<string, Kind>>,
  when?: string,
): Html {
  const key = options.find((o) => current?.[o] !== undefined) ?? options[0] ?? '';
  const value = current?.[key];
  const lists: Partial<Record<string, string>> = { plu: 'rule-plus', group: 'rule-groups' };
  const selectId = ctx.next();
  const inputId = ctx.next();
  const valueKind = valueKinds[key] ?? 'text';
  return html`<div
    class="keyed"
    data-path="${path}"
    data-kind="keyed"
    ${when ? html`data-when="${when}"` : ''}
  >
    <div class="field">
      <label for="${selectId}">${ctx.t(labels[0])}</label>
      <select id="${selectId}" data-part="key" aria-describedby="${selectId}-help">
        ${options.map(
          (o) =>
            html`<option
              value="${o}"
              data-value-kind="${valueKinds[o] ?? 'text'}"
              data-list="${lists[o] ?? ''}"
              ${o === key ? html`selected` : ''}
            >
              ${ctx.t(o)}
            </option>`,
        )}
      </select>
      <p class="help" id="${selectId}-help">${ctx.t(`${labels[0]}Help` as RuleFormKey)}</p>
    </div>
    <div class="field">
      <label for="${inputId}">${ctx.t(labels[1])}</label>
      <input
        id="${inputId}"
        data-part="value"
        ${lists[key] ? html`list="${lists[key]}"` : ''}
        ${valueKind === 'text' ? '' : html`inputmode="decimal"`}
        aria-describedby="${inputId}-help"
        value="${display(ctx, valueKind, value)}"
      />
      <p class="help" id="${inputId}-help">${ctx.t(`${labels[1]}Help` as RuleFormKey)}</p>
    </div>
  </div>`;
}

/** A set's or list's fieldset: the field it fills, its explanation, and when it is shown. */
function groupAttributes(kind: 'set' | 'list', path: string, id: string, when?: string): Html {
  return html`class="${kind}" data-path="${path}" data-kind="${kind}" aria-describedby="${id}-help"
  ${when ? html`data-when="${when}"` : ''}`;
}

/** Rows of a list: the rows there are, a template for a new one, and buttons to add and remove. */
export function list(
  ctx: Ctx,
  path: string,
  key: RuleFormKey,
  help: RuleFormKey,
  add: RuleFormKey,
  items: unknown,
  row: (item: Doc | undefined) => Html,
  when?: string,
  optional = false,
): Html {
  const id = ctx.next();
  const rows = Array.isArray(items) ? (items as Doc[]) : [];
  const rowHtml = (item: Doc | undefined) =>
    html`<div class="row" data-row>
      ${row(item)}
      <button type="button" class="secondary" data-remove>${ctx.t('remove')}</button>
    </div>`;
  return html`<fieldset ${groupAttributes('list', path, id, when)} ${optional ? html`data-optional` : ''}>
    <legend>${ctx.t(key)}</legend>
    <p class="help" id="${id}-help">${ctx.t(help)}</p>
    <div data-rows>${rows.map((item) => rowHtml(item))}</div>
    <template>${rowHtml(undefined)}</template>
    <button type="button" class="secondary" data-add>${ctx.t(add)}</button>
  </fieldset>`;
}

export function context(options: RuleFormContext): Ctx {
  let n = 0;
  return {
    ...options,
    t: ruleFormTranslator(options.lang, options),
    exponent: currencyExponent(options.currency),
    next: () => `rf${++n}`,
  };
}
