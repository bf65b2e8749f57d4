import type { FastifyInstance } from 'fastify';
import { type RenderOptions, registerErrorRendering, sendApiError } from '../wire/error-render.js';
import { portalCampaignRoutes } from './campaigns.routes.js';
import { portalCardRoutes } from './cards.routes.js';
import { portalCustomerRoutes } from './customers.routes.js';
import { portalCardHistoryRoutes } from './card-history.routes.js';
import { portalCatalogRoutes } from './catalog.routes.js';
import { portalDashboardRoutes } from './dashboard.routes.js';
import { portalDeveloperRoutes } from './developers.routes.js';
import { portalPageRoutes } from './pages.routes.js';
import { portalReportRoutes } from './reports.routes.js';
import { portalReceiptDetailsRoutes } from './receipt-details.routes.js';
import { portalRecentBasketRoutes, portalRuleStatsRoutes } from './rule-stats.routes.js';
import { registerSessionLoader } from './session.js';
import { portalSessionRoutes } from './session.routes.js';
import { portalTeamRoutes } from './team.routes.js';
import { portalPasswordResetRoutes } from './password-reset.routes.js';
import { portalTerminalRoutes } from './terminals.routes.js';
import { portalCampaignCodeRoutes } from './campaign-codes.routes.js';

/** The merchant portal: server-rendered pages under /portal and their JSON API under /portal/api/v1. */
export async function registerPortal(app: FastifyInstance, renderOptions: RenderOptions): Promise<void> {
  await app.register(
    async (portal) => {
      registerSessionLoader(portal);
      await portal.register(
        async (api) => {
          registerErrorRendering(api, sendApiError, renderOptions);
          await api.register(portalSessionRoutes);
          await api.register(portalTeamRoutes);
          await api.register(portalPasswordResetRoutes);
          await api.register(portalTerminalRoutes);
          await api.register(portalCampaignRoutes);
          await api.register(portalCampaignCodeRoutes);
          await api.register(portalRuleStatsRoutes);
          await api.register(portalDashboardRoutes);
          await api.register(portalRecentBasketRoutes);
          await api.register(portalReportRoutes);
          await api.register(portalCardRoutes);
          await api.register(portalCustomerRoutes);
          await api.register(portalCardHistoryRoutes);
          await api.register(portalCatalogRoutes);
          await api.register(portalDeveloperRoutes);
          await api.register(portalReceiptDetailsRoutes);
        },
        { prefix: '/api/v1' },
      );
      await portal.register(portalPageRoutes);
    },
    { prefix: '/portal' },
  );
}
