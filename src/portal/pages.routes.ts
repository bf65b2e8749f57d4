import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { PACKAGE_ROOT } from '../shared/code-root.js';
import { brandsWithOutlets } from '../merchants/merchant.store.js';
import { AppError } from '../shared/errors.js';
import { Html, html } from './html.js';
import { receiptDetailsOf } from '../merchants/receipt-details.js';
import { checkoutClientsView, deliveriesView, webhooksView } from './developers.routes.js';
import { requireSession as session } from './session.js';
import { type BasketQuery, basketSearchView, basketView } from './basket-views.js';
import { everyRow, found, viewDeps } from './views.js';
import { meView } from './session.routes.js';
import { terminalsView } from './terminals.routes.js';
import { type CatalogArticles, catalogBody } from './page-catalog.js';
import { articlesView, catalogView } from './catalog.routes.js';
import { PORTAL_PAGES, pageSecurityHeaders, securePages } from '../wire/page-security.js';
import { langOf } from './i18n.js';
import { type PageUser, page } from './layout.js';
import { type DashboardQuery, dashboardView } from './dashboard.routes.js';
import { dashboardBody } from './page-dashboard.js';
import { developersBody } from './page-developers.js';
import { type BasketPage, basketDetailBody, basketSearchBody } from './page-baskets.js';
import { terminalsBody } from './page-operations.js';
import { settingsBody } from './page-settings.js';
import { ownPasswordSection, teamSection } from './page-team.js';
import { forgotBody, resetBody, resetSpentBody } from './page-password-reset.js';
import { linkOpen } from '../portal-users/password-reset.service.js';
import { settingsTranslator } from './strings-settings.js';
import { teamView } from './team.routes.js';
import { translator } from './strings.js';
import { type PageRoute, campaignPageRoutes } from './campaign-pages.routes.js';
import { orderPageRoutes } from './order-pages.routes.js';
import { cardPageRoutes } from './card-pages.routes.js';
import { pageQuery, searchDays, searchId, searchText } from './search-days.js';
import { RECEIPT_MAIL_FILTERS } from '../notifications/purchase-notification.store.js';

/** The portal's static files: its stylesheet and script, and Chart.js from its npm package. */
function assets(): Record<string, { type: string; body: Buffer }> {
  const root = join(PACKAGE_ROOT, 'portal-assets');
  const chart = join(dirname(createRequire(import.meta.url).resolve('chart.js')), 'chart.umd.min.js');
  const script = (path: string) => ({ type: 'text/javascript; charset=utf-8', body: readFileSync(path) });
  return {
    'portal.css': { type: 'text/css; charset=utf-8', body: readFileSync(join(root, 'portal.css')) },
    ...Object.fromEntries(
      ['portal.js', 'rule-form.js', 'dashboard.js', 'dry-run-basket.js'].map((n) => [
        n,
        script(join(root, n)),
      ]),
    ),
    'chart.umd.min.js': script(chart),
  };
}

/** The pages' headers, the same mechanism as the consumer's pages (src/wire/page-security.ts). */
const SECURITY_HEADERS = { ...pageSecurityHeaders(PORTAL_PAGES), 'cache-control': 'no-store' };

/**
 * The portal's pages, rendered on the server from the views the portal's JSON API answers with
 * (src/portal/views.ts), so that a page shows exactly what the API answers.
 */
export const portalPageRoutes: FastifyPluginAsync = async (app) => {
  const files = assets();
  securePages(app, PORTAL_PAGES);
  const { db } = app.ctx.database;

  app.get('/assets/:name', { schema: { hide: true } }, async (request, reply) => {
    const file = files[(request.params as { name: string }).name];
    if (!file) return reply.code(404).type('text/plain').send('Not found');
    return reply
      .type(file.type)
      .header('cache-control', 'public, max-age=3600')
      .header('x-content-type-options', 'nosniff')
      .send(file.body);
  });

  const deps = viewDeps(app);

  /** The signed-in user, or a redirect to the sign-in page. */
  async function user(request: FastifyRequest, reply: FastifyReply): Promise<PageUser | null> {
    if (!request.portal) {
      const next = encodeURIComponent(request.url);
      await reply.code(303).header('location', `/portal/signin?next=${next}`).send();
      return null;
    }
    return meView(request, request.portal);
  }

  function send(reply: FastifyReply, status: number, text: string) {
    return reply.code(status).headers(SECURITY_HEADERS).type('text/html; charset=utf-8').send(text);
  }

  async function outletsOf(merchantId: number) {
    const brands = await brandsWithOutlets(db, merchantId);
    const seen = new Map<number, string>();
    for (const b of brands) for (const o of b.outlets) seen.set(o.Id, o.Name);
    return [...seen].map(([id, name]) => ({ id, name }));
  }

  function notFound(reply: FastifyReply, u: PageUser) {
    return send(
      reply,
      404,
      page({
        title: translator(u.lang)('pageNotFound'),
        lang: u.lang,
        user: u,
        body: html`<p>${translator(u.lang)('pageNotFoundText')}</p>
          <p><a href="/portal/dashboard">${translator(u.lang)('backToDashboard')}</a></p>`,
      }),
    );
  }

  function badLink(reply: FastifyReply, u: PageUser) {
    const t = translator(u.lang);
    return send(
      reply,
      400,
      page({
        title: t('badLink'),
        lang: u.lang,
        user: u,
        body: html`<p>${t('badLinkText')}</p>
          <p><a href="/portal/dashboard">${t('backToDashboard')}</a></p>`,
      }),
    );
  }

  const hide = { schema: { hide: true } };

  // A path of the portal that names no page: the portal's own page, with its navigation.
  app.setNotFoundHandler(async (request, reply) => {
    const u = await user(request, reply);
    if (!u) return reply;
    return notFound(reply, u);
  });

  app.get('/', hide, async (request, reply) =>
    reply
      .code(303)
      .header('location', request.portal ? '/portal/dashboard' : '/portal/signin')
      .send(),
  );

  app.get('/signin', hide, async (request, reply) => {
    const lang = langOf(null, request.headers['accept-language']);
    const t = translator(lang);
    const s = settingsTranslator(lang);
    const q = request.query as Record<string, unknown>;
    const raw = typeof q.next === 'string' ? q.next : '';
    // Only a path of the portal: never an open redirect.
    const next = /^\/portal\/[A-Za-z0-9/?=&%._-]*$/.test(raw) ? raw : '/portal/dashboard';
    const body = html`<div class="signin card">
      ${q.reset === '1' ? html`<p class="form-ok" role="status">${s('passwordResetDone')}</p>` : ''}
      ${q.invited === '1' ? html`<p class="form-ok" role="status">${s('firstPasswordDone')}</p>` : ''}
      <form data-api="POST /portal/api/v1/session" data-next="${next}">
        <label
          >${t('email')} <input type="email" name="email" autocomplete="username" required autofocus
        /></label>
        <label
          >${t('password')} <input type="password" name="password" autocomplete="current-password" required
        /></label>
        <p class="form-error" role="alert" hidden></p>
        <button type="submit">${t('signIn')}</button>
      </form>
      <p><a href="/portal/forgot">${s('forgotPassword')}</a></p>
    </div>`;
    return send(reply, 200, page({ title: t('signIn'), lang, user: null, body }));
  });

  // A forgotten password: the link asked for, then the new password set with it.
  app.get('/forgot', hide, async (request, reply) => {
    const lang = langOf(null, request.headers['accept-language']);
    const title = settingsTranslator(lang)('forgotTitle');
    return send(reply, 200, page({ title, lang, user: null, body: forgotBody(lang) }));
  });

  app.get('/reset/:token', hide, async (request, reply) => {
    const lang = langOf(null, request.headers['accept-language']);
    const token = (request.params as { token: string }).token;
    // Only what a link holds goes into the page; anything else gets the form that asks for a link.
    if (!/^[A-Za-z0-9_-]{43}$/.test(token))
      return reply.code(303).header('location', '/portal/forgot').send();
    const s = settingsTranslator(lang);
    // A link used, expired or spent by a newer password says so at once (410), not after the form.
    const link = await linkOpen(app.services.accounts, token);
    if (!link)
      return send(
        reply,
        410,
        page({ title: s('forgotTitle'), lang, user: null, body: resetSpentBody(lang) }),
      );
    const title = link.purpose === 'invitation' ? s('inviteTitle') : s('forgotTitle');
    return send(reply, 200, page({ title, lang, user: null, body: resetBody(lang, token, link) }));
  });

  const simple: PageRoute = (path, key, render) => {
    app.get(path, hide, async (request, reply) => {
      const u = await user(request, reply);
      if (!u) return reply;
      // A hand-made link: a field given twice counts once; U+0000 anywhere is no link of ours.
      const query = pageQuery(request.query);
      if (query === null || pageQuery(request.params) === null) return badLink(reply, u);
      request.query = query;
      const out = await render(request, u);
      if (!out) return notFound(reply, u);
      const { title, body } = out instanceof Html ? { title: translator(u.lang)(key), body: out } : out;
      const scripts =
        key === 'dashboard'
          ? ['/portal/assets/chart.umd.min.js', '/portal/assets/dashboard.js']
          : key === 'campaigns'
            ? [
                '/portal/assets/chart.umd.min.js',
                '/portal/assets/rule-form.js',
                '/portal/assets/dry-run-basket.js',
              ]
            : [];
      return send(reply, 200, page({ title, lang: u.lang, user: u, active: key, body, scripts }));
    });
  };

  simple('/dashboard', 'dashboard', async (request, u) => {
    const q = request.query as Record<string, string>;
    const preset = q.preset;
    const query: DashboardQuery = {
      preset:
        preset === 'today' || preset === 'yesterday' || preset === '7d' || preset === '30d'
          ? preset
          : undefined,
      from: q.from || undefined,
      to: q.to || undefined,
      outletId: searchId(q.outletId),
    };
    let d: Awaited<ReturnType<typeof dashboardView>>;
    try {
      if ((q.preset && !query.preset) || (q.outletId && !query.outletId))
        throw new AppError('refused', 'The period or the outlet is not one the dashboard knows.');
      d = await dashboardView(deps, session(request), query);
    } catch (err) {
      if (!(err instanceof AppError) || err.entry.status !== 400) throw err;
      return html`<p class="form-error" role="alert">${err.message}</p>
        <p><a href="/portal/dashboard">←</a></p>`;
    }
    const outletId = q.outletId ? Number(q.outletId) : null;
    return dashboardBody(d, u, await outletsOf(request.portal?.merchantId ?? 0), outletId);
  });

  simple('/terminals', 'terminals', async (request, u) => {
    return terminalsBody(await terminalsView(deps, session(request)), u);
  });

  campaignPageRoutes(app, deps, simple, outletsOf);

  simple('/baskets', 'baskets', async (request, u) => {
    const q = request.query as Record<string, string>;
    const query: BasketQuery = {
      limit: 50,
      ...searchDays(q, u.merchant.timeZone),
      outletId: searchId(q.outletId),
      trackingUnitId: searchText(q.trackingUnitId, 100),
      card: searchText(q.card, 200),
      number: searchText(q.number, 200),
      state: q.state === 'open' || q.state === 'granted' || q.state === 'returned' ? q.state : undefined,
      receiptMail: RECEIPT_MAIL_FILTERS.find((k) => k === q.receiptMail),
      cursor: searchText(q.cursor, 400),
    };
    // A filter the search cannot take finds nothing, as the API refuses it.
    const refused = ['outletId', 'trackingUnitId', 'card', 'number', 'state', 'receiptMail', 'cursor'].some(
      (k) => q[k] !== undefined && q[k] !== '' && query[k as keyof BasketQuery] === undefined,
    );
    const r = refused ? null : await found(basketSearchView(deps, session(request), query), 400);
    const units = await terminalsView(deps, session(request));
    const page: BasketPage = r ?? { data: [], hasMore: false, nextCursor: null };
    return basketSearchBody(page, u, q, await outletsOf(request.portal?.merchantId ?? 0), units, query);
  });

  orderPageRoutes(deps, simple);

  simple('/baskets/:unit/:basket', 'baskets', async (request, u) => {
    const p = request.params as { unit: string; basket: string };
    const b = await found(basketView(deps, session(request), p.unit, p.basket));
    return b ? basketDetailBody(b, u) : null;
  });

  cardPageRoutes(deps, simple);

  simple('/developers', 'developers', async (request, u) => {
    const q = request.query as Record<string, string>;
    const webhookId = /^[A-Za-z0-9_-]{1,100}$/.test(q.webhookId ?? '') ? String(q.webhookId) : '';
    const cursor = /^[A-Za-z0-9_-]{1,400}$/.test(q.cursor ?? '') ? String(q.cursor) : '';
    const s = session(request);
    const [clients, hooks, deliveries] = await Promise.all([
      everyRow((q) => checkoutClientsView(deps, s, q), 1_000),
      everyRow((q) => webhooksView(deps, s, q), 1_000),
      // A cursor this list did not give out (an edited link): no deliveries, and the link to the newest.
      found(
        deliveriesView(deps, s, {
          limit: 20,
          ...(webhookId ? { webhookId } : {}),
          ...(cursor ? { cursor } : {}),
        }),
        400,
      ),
    ]);
    const page = deliveries ?? { data: [], nextCursor: null };
    return developersBody(clients, hooks, { ...page, webhookId, cursor }, u);
  });

  simple('/settings', 'settings', async (request, u) => {
    const s = session(request);
    const [details, team] = await Promise.all([
      receiptDetailsOf(app.services.merchants, s.merchantId),
      everyRow((q) => teamView(app.services.accounts, s, q), 1_000),
    ]);
    return html`${settingsBody(details, u)} ${teamSection(team, u)} ${ownPasswordSection(u)}`;
  });

  simple('/catalog', 'catalog', async (request, u) => {
    const q = request.query as Record<string, string>;
    const s = session(request);
    const catalog = await catalogView(deps, s);
    const first = catalog.sortiments[0];
    const sortimentId = /^[1-9][0-9]{0,15}$/.test(q.sortimentId ?? '')
      ? String(q.sortimentId)
      : first
        ? String(first.id)
        : '';
    const search = (q.search ?? '').slice(0, 100);
    const cursor = /^[A-Za-z0-9_-]{1,400}$/.test(q.cursor ?? '') ? String(q.cursor) : '';
    let articles: CatalogArticles | null = null;
    if (sortimentId) {
      const lang = langOf(s.lang, request.headers['accept-language']);
      const query = { search, limit: 100, ...(cursor ? { cursor } : {}) };
      articles = (await found(articlesView(deps, s, lang, Number(sortimentId), query), 400)) ?? {
        data: [],
        hasMore: false,
        nextCursor: null,
      };
    }
    return catalogBody(catalog, articles, { sortimentId, search, cursor }, u);
  });
};
