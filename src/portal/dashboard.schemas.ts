import { type Static, Type } from 'typebox';

/** The dashboard's answer (docs/decisions.md, "Dashboard figures"). Amounts in minor units. */

const Int = (description: string) => Type.Integer({ description });

const FigureFields = {
  baskets: Int('Granted baskets, by the time of the basket.'),
  openBaskets: Int('Baskets uploaded and not granted (paid or not): in no other figure.'),
  salesMinor: Int("Line gross of the granted baskets' positions (price times amount)."),
  rewardsMinor: Int('Reward value the grants booked as redeemed at the till.'),
  returns: Int('Returns booked, by the time of the return.'),
  returnsMinor: Int('What the returns gave back: the returned line gross less the rewards they refunded.'),
  revenueMinor: Int('salesMinor − rewardsMinor − returnsMinor.'),
  pointsEarned: Int('Loyalty points earned.'),
  pointsRedeemed: Int('Loyalty points spent on rewards.'),
  withTotalValue: Int('Granted baskets whose till sent the optional TotalValue.'),
  totalValueDiffers: Int('Of them, those whose TotalValue is not the sum of their positions.'),
};

const TotalsSchema = Type.Object(
  {
    ...FigureFields,
    averageTicketMinor: Int('(salesMinor − rewardsMinor) / baskets, rounded; 0 without baskets.'),
    totalValueDiffersTillMinor: Int('The TotalValue the till sent for the baskets where it differs.'),
    totalValueDiffersSalesMinor: Int("Those baskets' positions summed."),
  },
  { title: 'PortalDashboardTotals' },
);

const TopArticleSchema = Type.Object(
  {
    plu: Type.Union([Type.String(), Type.Null()], {
      description: 'The PLU; null for the positions sent without one, together.',
    }),
    name: Type.Union([Type.String(), Type.Null()], {
      description: "The till's ProductName (latest in the range), else the sortiment's name.",
    }),
    quantity: Type.String({ description: 'Amount sold, exact decimal (pieces, or kilograms).' }),
    salesMinor: Int('Line gross.'),
  },
  { title: 'PortalTopArticle' },
);

const TopCampaignSchema = Type.Object({
  campaignId: Type.Integer(),
  name: Type.String(),
  uses: Type.Integer(),
  costMinor: Type.Integer({ description: 'Reward value booked by grants, minor units.' }),
});

export const PresetSchema = Type.Union([
  Type.Literal('today'),
  Type.Literal('yesterday'),
  Type.Literal('7d'),
  Type.Literal('30d'),
]);
export type Preset = Static<typeof PresetSchema>;

const OrderFigureFields = {
  orders: Int('Checkout orders placed in the period (by the time they were placed).'),
  orderedMinor: Int("Their totals as priced (after the campaigns' discounts)."),
  chargedMinor: Int("Of it, paid from the customers' balances."),
  refunds: Int('Refunds made in the period (by the time of the refund, whenever the order was placed).'),
  refundedMinor: Int('What those refunds gave back to the balances.'),
  netMinor: Int('orderedMinor − refundedMinor.'),
};

const OrderFiguresSchema = Type.Object(OrderFigureFields, { title: 'PortalDashboardOrderFigures' });

/** How many receipt mails of the period did not arrive, by what became of them. */
const UndeliveredMails = (description: string) =>
  Type.Object(
    {
      refused: Int("Refused for good by the customer's mail server (an address it does not know)."),
      givenUp: Int('Given up after every try failed (a full mailbox, a server that never took it).'),
    },
    { description },
  );

const DashboardOrdersSchema = Type.Object(
  {
    totals: OrderFiguresSchema,
    previous: Type.Object(OrderFigureFields, {
      title: 'PortalDashboardPreviousOrderFigures',
      description:
        'The same of the previous period (`previous.from` to `previous.to`, up to `previous.until`).',
    }),
    byShop: Type.Array(
      Type.Object(
        {
          clientId: Type.Integer({
            description: 'The checkout client: GET /portal/api/v1/orders?clientId= lists its orders.',
          }),
          shop: Type.String({ description: "The checkout client's name: the shop, app or kiosk." }),
          revoked: Type.Boolean({
            description: 'Its access was revoked; listed only while it has figures in the period.',
          }),
          ...OrderFigureFields,
        },
        { title: 'PortalDashboardShopOrders' },
      ),
      { description: 'Every checkout client of the merchant, by name, those without orders with zeros.' },
    ),
    undeliveredReceiptMails: UndeliveredMails(
      "The period's orders (by the time placed) whose receipt mail did not arrive, as GET /orders?receiptMail=refused or given_up finds them; the customer's page corrects the address and sends them again.",
    ),
  },
  {
    title: 'PortalDashboardOrders',
    description:
      "The orders placed through the checkout interface (ordering apps, kiosks, web shops), beside the tills' figures and not in them.",
  },
);

/** The customers' stored balance over the period (docs/decisions.md, "The customers' stored balance on the dashboard"). */
const StoredBalanceSchema = Type.Object(
  {
    openingMinor: Int("Held on the customers' cards and profiles at the period's first instant."),
    closingMinor: Int(
      'Held at its end: openingMinor + tillLoadedMinor − tillPaidMinor + topUpsMinor − ordersChargedMinor + ordersRefundedMinor + correctionsMinor.',
    ),
    tillLoadedMinor: Int('Loaded at the tills.'),
    tillPaidMinor: Int('Taken off at the tills: paid with the balance or paid out.'),
    topUpsMinor: Int('Topped up through the checkout interface.'),
    ordersChargedMinor: Int('Charged for checkout orders paid from the balance.'),
    ordersRefundedMinor: Int('Given back by refunds of such orders.'),
    correctionsMinor: Int('Corrections in the portal and by the operator, signed.'),
    heldNow: Type.Object(
      {
        profilesMinor: Int("On customers' profiles: the balances of GET /consumers and its CSV."),
        cardsMinor: Int('On cards without a customer: gift cards and customer cards not linked to one.'),
      },
      { description: 'Held now, whatever the period: their sum is closingMinor of a period that ends now.' },
    ),
    days: Type.Array(
      Type.Object({ day: Type.String({ format: 'date' }), closingMinor: Int('Held at the end of the day.') }),
      { description: "Every day of the period, oldest first; the last one held at the period's end." },
    ),
  },
  {
    title: 'PortalDashboardStoredBalance',
    description:
      "What the customers hold on their cards and profiles in the merchant's currency, money the business owes them, and what moved it; a move between two customers' accounts (a card merged) changes no total.",
  },
);

export const DashboardSchema = Type.Object(
  {
    currency: Type.String(),
    timeZone: Type.String(),
    preset: Type.Union([PresetSchema, Type.Null()], {
      description: 'The preset shown, null for a range of days chosen.',
    }),
    from: Type.String({ format: 'date' }),
    to: Type.String({ format: 'date' }),
    totals: TotalsSchema,
    previous: Type.Object(
      {
        from: Type.String({ format: 'date' }),
        to: Type.String({ format: 'date' }),
        until: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
          description:
            'When the range ends today: the previous period ends at the same time of day on its last day.',
        }),
        totals: TotalsSchema,
      },
      { description: 'The period of as many days just before, for the change.' },
    ),
    days: Type.Array(
      Type.Object({
        day: Type.String({ format: 'date' }),
        outletId: Type.Union([Type.Integer(), Type.Null()]),
        ...FigureFields,
      }),
      { description: 'Per local day and outlet, days without anything left out.' },
    ),
    hours: Type.Array(
      Type.Object({
        hour: Type.Integer({ minimum: 0, maximum: 23 }),
        baskets: Type.Integer(),
        revenueMinor: Int('salesMinor − rewardsMinor of the granted baskets of that hour.'),
      }),
      { description: 'Granted baskets by local hour of day, all 24 hours.' },
    ),
    topArticlesByRevenue: Type.Array(TopArticleSchema),
    topArticlesByCount: Type.Array(TopArticleSchema),
    topByUse: Type.Array(TopCampaignSchema),
    topByCost: Type.Array(TopCampaignSchema),
    undeliveredReceiptMails: UndeliveredMails(
      "The period's baskets (by the basket's time) whose receipt mail did not arrive, as GET /baskets?receiptMail=refused or given_up finds them; the customer's page corrects the address and sends them again.",
    ),
    orders: Type.Union([DashboardOrdersSchema, Type.Null()], {
      description:
        "Checkout orders have no outlet: null when outletId is given; otherwise the period's orders and refunds, all shops.",
    }),
    storedBalance: Type.Union([StoredBalanceSchema, Type.Null()], {
      description:
        "The balance is the merchant's, not an outlet's: null when outletId is given, and for a merchant whose customers never held money in its currency.",
    }),
    replicaLagSeconds: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description:
        'How many seconds the figures may be behind: read from a replica (DATABASE_READ_URL) that is this far behind the leader; null without a replica.',
    }),
  },
  { title: 'PortalDashboard' },
);
