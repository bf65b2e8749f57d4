import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Html } from './html.js';
import { requireSession as session } from './session.js';
import { everyRow, found, type ViewDeps } from './views.js';
import { oneRuleView, rulesView } from './campaigns.routes.js';
import {
  campaignPurchasesView,
  campaignStatsView,
  recentBasketsView,
  schemeStatsView,
} from './rule-stats.routes.js';
import { terminalsView } from './terminals.routes.js';
import { codesPanelView } from './campaign-codes.routes.js';
import { findCode } from '../campaigns/campaign-codes.service.js';
import { CODE_TEXT_MAX, type CodeCheck } from './page-code-lookup.js';
import { articlesView, catalogView } from './catalog.routes.js';
import { langOf } from './i18n.js';
import type { PageUser } from './layout.js';
import { type SelectorArticle, ruleEditorBody, ruleListBody } from './page-campaigns.js';
import { TEMPLATE_KEYS } from './page-campaign-extras.js';
import type { RecentBasketView, TillOption } from './page-dry-run-basket.js';
import { type StringKey, translator } from './strings.js';
import type { TierSchemeChoice } from './rule-form-widgets.js';

/** What a page's render answers: its body (titled by its navigation key), a title and body, or not found. */
export type Rendered = Html | { title: string; body: Html } | null;

/** Registers a page of the portal's layout under its navigation key (pages.routes.ts). */
export type PageRoute = (
  path: string,
  key: StringKey,
  render: (request: FastifyRequest, u: PageUser) => Promise<Rendered>,
) => void;

/**
 * The pages of campaigns and loyalty schemes: their list, the new and the existing one's editor
 * with its dry run, figures, codes and status tiers.
 */
export function campaignPageRoutes(
  app: FastifyInstance,
  deps: ViewDeps,
  simple: PageRoute,
  outletsOf: (merchantId: number) => Promise<{ id: number; name: string }[]>,
): void {
  /** The articles and groups of the merchant's sortiments, for picking them in the campaign form. */
  async function articlesOf(request: FastifyRequest): Promise<SelectorArticle[]> {
    const s = session(request);
    const lang = langOf(s.lang, request.headers['accept-language']);
    const out: SelectorArticle[] = [];
    for (const sortiment of (await catalogView(deps, s)).sortiments) {
      out.push(...(await everyRow((q) => articlesView(deps, s, lang, sortiment.id, q), 500)));
    }
    return out;
  }

  /** The tills (latest seen first) and recent baskets the dry run can start from. */
  async function dryRunExtras(
    request: FastifyRequest,
  ): Promise<{ terminals: TillOption[]; recent: RecentBasketView[]; nowMs: number }> {
    const [tills, recent] = await Promise.all([
      terminalsView(deps, session(request)),
      recentBasketsView(deps, session(request), { limit: 20 }),
    ]);
    const terminals = tills
      .filter((x) => x.activated)
      .sort((a, b) => (b.lastSeen ?? '').localeCompare(a.lastSeen ?? ''))
      .map((x) => ({
        trackingUnitId: x.trackingUnitId,
        instanceName: x.instanceName,
        outletName: x.outletName ?? `#${x.outletId}`,
      }));
    return { terminals, recent: recent.data, nowMs: app.ctx.clock.nowMs() };
  }

  /** The merchant's loyalty schemes with their tiers' names, for a campaign's limit and dry run. */
  async function schemeChoices(request: FastifyRequest): Promise<TierSchemeChoice[]> {
    return (await rulesView(deps, session(request), 'scheme')).map((r) => ({
      id: r.id,
      name: r.name,
      tiers: Array.isArray(r.tiers) ? (r.tiers as { name: string }[]).map((x) => x.name) : [],
      ended: r.state === 'ended',
    }));
  }

  /** The code the campaigns page's check was asked for (`?code=`), and what it found. */
  async function codeCheck(request: FastifyRequest): Promise<CodeCheck | null> {
    const asked = (request.query as Record<string, unknown>).code;
    const typed = typeof asked === 'string' ? asked.trim() : '';
    if (typed === '') return null;
    if (typed.length > CODE_TEXT_MAX) return { typed, found: null, campaignState: null };
    const s = session(request);
    const code = await found(findCode(deps.services.campaigns, s.merchantId, typed));
    // Its campaign's state as the campaigns list shows it: a code of an ended campaign gives nothing.
    const rule = code === null ? null : await found(oneRuleView(deps, s, 'campaign', code.campaignId));
    return { typed, found: code, campaignState: rule?.state ?? null };
  }

  simple('/campaigns', 'campaigns', async (request, u) => {
    const c = await rulesView(deps, session(request), 'campaign');
    const s = await rulesView(deps, session(request), 'scheme');
    const baskets = await campaignPurchasesView(deps, session(request));
    return ruleListBody(c, s, u, await codeCheck(request), baskets);
  });

  for (const [segment, kind] of [
    ['campaigns', 'campaign'],
    ['loyaltySchemes', 'scheme'],
  ] as const) {
    simple(`/${segment}/new`, 'campaigns', async (request, u) => {
      const asked = (request.query as Record<string, string>).template;
      const template = TEMPLATE_KEYS.find((k) => k === asked) ?? null;
      return {
        title: translator(u.lang)(kind === 'campaign' ? 'newCampaign' : 'newScheme'),
        body: ruleEditorBody(
          kind,
          null,
          u,
          await outletsOf(request.portal?.merchantId ?? 0),
          await articlesOf(request),
          {
            ...(await dryRunExtras(request)),
            template,
            figures: null,
            schemes: kind === 'campaign' ? await schemeChoices(request) : [],
          },
        ),
      };
    });
    simple(`/${segment}/:id`, 'campaigns', async (request, u) => {
      const id = (request.params as { id: string }).id;
      if (!/^[1-9][0-9]{0,15}$/.test(id)) return null;
      const s = session(request);
      const rule = await found(oneRuleView(deps, s, kind, Number(id)));
      if (!rule) return null;
      const figures =
        kind === 'campaign'
          ? await found(campaignStatsView(deps, s, Number(id)))
          : await found(schemeStatsView(deps, s, Number(id)));
      const codes = rule.uniqueCodes === true ? await codesPanelView(deps, s, Number(id)) : null;
      const schemes = kind === 'campaign' ? await schemeChoices(request) : [];
      const limit = kind === 'campaign' ? (rule.tiers as { schemeId?: number } | null | undefined) : null;
      const tierScheme = limit?.schemeId ? schemes.find((x) => x.id === limit.schemeId) : undefined;
      return {
        title: rule.name,
        body: ruleEditorBody(
          kind,
          rule,
          u,
          await outletsOf(request.portal?.merchantId ?? 0),
          await articlesOf(request),
          {
            ...(await dryRunExtras(request)),
            template: null,
            figures,
            codes,
            tierSchemeName: tierScheme?.name ?? null,
            schemes,
          },
        ),
      };
    });
  }
}
