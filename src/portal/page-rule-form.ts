import { type Html, html } from './html.js';
import {
  type Ctx,
  type Doc,
  type Kind,
  type RuleFormContext,
  check,
  context,
  input,
  keyed,
  list,
  select,
  set,
} from './rule-form-widgets.js';
import type { RuleFormKey } from './strings-rule-form.js';
import { codeWord } from './code-words.js';
import { tierLimitField } from './rule-form-tier-limit.js';

/**
 * The campaign and loyalty-scheme form: one labelled input per field of the definition, each with
 * its explanation (aria-describedby). The markup says which field of the document each input
 * fills (data-path) and how its text is read (data-kind); portal-assets/rule-form.js builds the
 * document from it, exactly the one the portal API validates, and shows the server's errors next
 * to the field they name. No rule of the definition is checked here (docs/decisions.md,
 * "Campaign and loyalty-scheme forms").
 */

export type { RuleFormContext };
const DISCOUNT_KINDS: Partial<Record<string, Kind>> = { percent: 'decimal', amount: 'money', price: 'money' };

function discount(ctx: Ctx, path: string, current: unknown, withPrice: boolean, when?: string): Html {
  const options: RuleFormKey[] = withPrice ? ['percent', 'amount', 'price'] : ['percent', 'amount'];
  return keyed(ctx, path, ['discountKind', 'discountValue'], options, current as Doc, DISCOUNT_KINDS, when);
}

function selectors(ctx: Ctx, path: string, help: RuleFormKey, items: unknown, when?: string): Html {
  return list(ctx, path, 'products', help, 'addArticle', items, (item) => selector(ctx, item), when);
}

function selector(ctx: Ctx, item: Doc | undefined): Html {
  return keyed(ctx, '', ['selectorKind', 'selectorValue'], ['plu', 'group'], item, {});
}

function validity(ctx: Ctx, d: Doc): Html {
  return html`${input(ctx, 'validFrom', 'validFrom', 'datetime', d.validFrom)}
  ${input(ctx, 'validTo', 'validTo', 'datetime', d.validTo)}`;
}

function outletSet(ctx: Ctx, d: Doc): Html {
  return set(
    ctx,
    'outletIds',
    'outletIds',
    ctx.outlets.map((o) => [o.id, o.name]),
    d.outletIds,
    'int',
  );
}

/** The fields of a campaign of any type; those of other types are hidden until the type is chosen. */
export function campaignFields(options: RuleFormContext, d: Doc): Html {
  const ctx = context(options);
  const days = ctx.t('dayNames').split(',');
  const types = ['product', 'bill', 'quantity', 'combination'];
  return html`${input(ctx, 'name', 'name', 'text', d.name)}
  ${select(
    ctx,
    'type',
    'type',
    types.map((v) => [v, codeWord(ctx.lang, v)]),
    d.type,
  )}
  ${discount(ctx, 'discount', d.discount, true, 'type=product,quantity,combination')}
  ${discount(ctx, 'discount', d.discount, false, 'type=bill')}
  ${selectors(ctx, 'products', 'productsHelp', d.products, 'type=product,quantity')}
  ${list(
    ctx,
    'combination',
    'combination',
    'combinationHelp',
    'addPart',
    d.combination,
    (part) => html`${selector(ctx, part)} ${input(ctx, 'quantity', 'quantity', 'int', part?.quantity)}`,
    'type=combination',
    true,
  )}
  ${input(ctx, 'buy', 'buy', 'int', d.buy, 'type=quantity')}
  ${input(ctx, 'get', 'get', 'int', d.get, 'type=quantity')}
  ${input(ctx, 'minTotal', 'minTotal', 'money', d.minTotal, 'type=bill')}
  ${check(ctx, 'exclusive', 'exclusive', d.exclusive, 'type=bill')}
  ${input(ctx, 'maxApplications', 'maxApplications', 'int', d.maxApplications)}
  ${input(ctx, 'couponCode', 'couponCode', 'text', d.couponCode)}
  ${check(ctx, 'uniqueCodes', 'uniqueCodes', d.uniqueCodes)}
  ${check(ctx, 'requiresConsumer', 'requiresConsumer', d.requiresConsumer)}
  ${input(ctx, 'usageLimitPerConsumer', 'usageLimitPerConsumer', 'int', d.usageLimitPerConsumer)}
  ${validity(ctx, d)}
  ${list(
    ctx,
    'schedule',
    'schedule',
    'scheduleHelp',
    'addWindow',
    d.schedule,
    (w) =>
      html`${set(
        ctx,
        'days',
        'days',
        days.map((name, i) => [i + 1, name]),
        w?.days,
        'int',
      )}
      ${input(ctx, 'from', 'timeFrom', 'time', w?.from)} ${input(ctx, 'to', 'timeTo', 'time', w?.to)}`,
    undefined,
    true,
  )}
  ${outletSet(ctx, d)}
  ${set(
    ctx,
    'channels',
    'channels',
    [
      ['pos', ctx.t('pos')],
      ['checkout', ctx.t('checkout')],
    ],
    d.channels,
    'text',
  )}
  ${tierLimitField(ctx, d)} ${input(ctx, 'priority', 'priority', 'int', d.priority)}
  ${stackingAndBudget(ctx, d)}`;
}

/** Stacking (product campaigns) and budgets (docs/decisions.md, "Stacking and budgets in the API"). */
function stackingAndBudget(ctx: Ctx, d: Doc): Html {
  const stacking = (d.stacking ?? undefined) as Doc | undefined;
  const budget = (d.budget ?? undefined) as Doc | undefined;
  const modes: [string, RuleFormKey][] = [
    ['', 'stackingNone'],
    ['exclusive', 'stackingExclusive'],
    ['stackable', 'stackingStackable'],
    ['group', 'stackingGroup'],
  ];
  const periods: [string, RuleFormKey][] = [
    ['', 'budgetNoPeriod'],
    ['day', 'day'],
    ['week', 'week'],
    ['month', 'month'],
  ];
  const label = ([v, key]: [string, RuleFormKey]): [string, string] => [v, ctx.t(key)];
  return html`${select(ctx, 'stacking.mode', 'stacking', modes.map(label), stacking?.mode, 'type=product')}
  ${input(ctx, 'stacking.group', 'stackingGroupName', 'text', stacking?.group, 'stacking.mode=group')}
  ${input(ctx, 'budget.total', 'budgetTotal', 'money', budget?.total)}
  ${input(ctx, 'budget.redemptions', 'budgetRedemptions', 'int', budget?.redemptions)}
  ${select(ctx, 'budget.period', 'budgetPeriod', periods.map(label), budget?.period)}
  ${input(ctx, 'budget.periodAmount', 'budgetPeriodAmount', 'money', budget?.periodAmount, 'budget.period=day,week,month')}`;
}

/** The fields of a loyalty scheme: its earn rules, its reward, validity, outlets and expiry. */
export function schemeFields(options: RuleFormContext, d: Doc): Html {
  const ctx = context(options);
  const reward = (d.reward ?? undefined) as Doc | undefined;
  return html`${input(ctx, 'name', 'name', 'text', d.name)}
  ${list(ctx, 'earn', 'earn', 'earnHelp', 'addEarn', d.earn, (rule) => {
    const per = rule?.per ?? 'unit';
    return html`${select(
      ctx,
      'per',
      'per',
      [
        ['unit', ctx.t('perUnit')],
        ['amount', ctx.t('perAmount')],
      ],
      per,
    )}
    ${input(ctx, 'amount', 'earnAmount', 'money', rule?.amount, 'per=amount')}
    ${selectors(ctx, 'products', 'earnProductsHelp', rule?.products, 'per=unit')}
    ${input(ctx, 'points', 'points', 'int', rule?.points)}`;
  })}
  ${select(
    ctx,
    'reward.type',
    'reward',
    [
      ['', ctx.t('noReward')],
      ['product', ctx.t('productReward')],
      ['bill', ctx.t('billReward')],
    ],
    reward?.type,
  )}
  ${input(ctx, 'reward.threshold', 'threshold', 'int', reward?.threshold, 'reward.type=product,bill')}
  ${selectors(ctx, 'reward.products', 'rewardProductsHelp', reward?.products, 'reward.type=product')}
  ${discount(ctx, 'reward.discount', reward?.discount, true, 'reward.type=product')}
  ${discount(ctx, 'reward.discount', reward?.discount, false, 'reward.type=bill')} ${validity(ctx, d)}
  ${outletSet(ctx, d)}
  ${input(ctx, 'pointsExpireAfterDays', 'pointsExpireAfterDays', 'int', d.pointsExpireAfterDays)}
  ${tierFields(ctx, d)}`;
}

/**
 * A scheme's status tiers (docs/decisions.md, "Status tiers"): the measure (none: no tiers, and the
 * rest is hidden and not sent), the period, and rows of name, threshold and multiplier.
 */
function tierFields(ctx: Ctx, d: Doc): Html {
  const basis = (d.tierBasis ?? undefined) as Doc | undefined;
  const period = (basis?.period ?? undefined) as Doc | undefined;
  const shown = 'tierBasis.measure=points,spend';
  return html`${select(
    ctx,
    'tierBasis.measure',
    'tierMeasure',
    [
      ['', ctx.t('noTiers')],
      ['points', ctx.t('tierMeasurePoints')],
      ['spend', ctx.t('tierMeasureSpend')],
    ],
    basis?.measure,
  )}
  ${select(
    ctx,
    'tierBasis.period.calendar',
    'tierPeriod',
    [
      ['', ctx.t('tierRolling')],
      ['month', ctx.t('tierMonth')],
      ['quarter', ctx.t('tierQuarter')],
      ['year', ctx.t('tierYear')],
    ],
    period?.calendar,
    shown,
  )}
  ${input(ctx, 'tierBasis.period.rollingDays', 'tierRollingDays', 'int', period?.rollingDays, 'tierBasis.period.calendar=')}
  ${list(
    ctx,
    'tiers',
    'tiers',
    'tiersHelp',
    'addTier',
    d.tiers,
    (tier) =>
      html`${input(ctx, 'name', 'tierName', 'text', tier?.name)}
      ${input(ctx, 'threshold', 'tierThreshold', 'decimal', tier?.threshold)}
      ${input(ctx, 'multiplier', 'tierMultiplier', 'decimal', tier?.multiplier)}`,
    shown,
    true,
  )}`;
}

/** The articles and groups of the merchant's sortiments, offered while typing a PLU or a group. */
export function selectorLists(
  articles: { plu: string; name: string; groupId: string | null; groupName: string | null }[],
): Html {
  const groups = new Map<string, string>();
  for (const a of articles) if (a.groupId) groups.set(a.groupId, a.groupName ?? a.groupId);
  return html`<datalist id="rule-plus">
      ${articles.map((a) => html`<option value="${a.plu}">${a.name}</option>`)}
    </datalist>
    <datalist id="rule-groups">
      ${[...groups].map(([id, name]) => html`<option value="${id}">${name}</option>`)}
    </datalist>`;
}
