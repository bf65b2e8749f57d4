import { type TSchema, Type } from 'typebox';
import { Nullable } from '../shared/nullable.js';
import { apiErrors } from '../wire/schemas.js';
import { TierStatusSchema } from '../wire/tier.schemas.js';
import { ReceiptMailSchema } from './mail-schemas.js';

/** Error answers every portal route can give, plus its own. */
export function portalErrors(own: Record<number, string>, { change = false } = {}): Record<number, TSchema> {
  const errors: Record<number, string> = { 401: 'Not signed in, or the session expired (not_signed_in).' };
  if (change) errors[403] = 'CSRF token missing or wrong (csrf_token_invalid).';
  return apiErrors({ ...errors, ...own });
}

/** A request's own id (a UUID the client makes once per change it means): sent again, it changes nothing more. */
export const RequestId = (description: string) =>
  Type.String({
    pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
    description,
  });

export const OWNER_ONLY =
  'CSRF token missing or wrong (csrf_token_invalid), or the user is staff: only owners change this (role_forbidden).';

export const MeSchema = Type.Object(
  {
    email: Type.String(),
    role: Type.Union([Type.Literal('owner'), Type.Literal('staff')]),
    lang: Type.Union([Type.Literal('de'), Type.Literal('en')]),
    csrfToken: Type.String({ description: 'Send it as X-CSRF-Token with every change.' }),
    merchant: Type.Object({
      serviceUserName: Type.String(),
      displayName: Type.String(),
      currency: Type.String(),
      timeZone: Type.String(),
    }),
  },
  { title: 'PortalMe' },
);

export const TerminalSchema = Type.Object(
  {
    trackingUnitId: Type.String(),
    instanceName: Type.String({ description: 'The name the till gave itself at registration.' }),
    outletId: Type.Integer(),
    outletName: Type.Union([Type.String(), Type.Null()]),
    devKeyName: Type.String({ description: 'The POS vendor (the DevKey that registered it).' }),
    activated: Type.Boolean({ description: 'It may upload baskets.' }),
    deactivated: Type.Boolean({
      description:
        'Not activated because an owner or the operator deactivated it (every request from it is refused, 1042, until it is activated again); false for a till never activated yet.',
    }),
    lastSeen: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'Its latest basket upload; null when it never uploaded one.',
    }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { title: 'PortalTerminal' },
);

const BasketFields = {
  trackingUnitId: Type.String(),
  instanceName: Nullable(Type.String({ description: "The terminal's name (its instanceName)." })),
  basketId: Type.String(),
  billNumber: Nullable(Type.String({ description: 'The bill number the till sent (BillNumber).' })),
  outletId: Type.Integer(),
  outletName: Nullable(Type.String()),
  timestamp: Type.String({ format: 'date-time' }),
  currency: Type.String(),
  totalValueMinor: Type.Union([Type.Integer(), Type.Null()], {
    description: 'The TotalValue the till sent (optional in the POS interface), minor units.',
  }),
  positionsTotalMinor: Type.Integer({
    description:
      'The positions summed (unit price times amount per line, rounded to the minor unit), as the dashboard counts sales: the total shown. Where totalValueMinor is not null and differs, the till sent another total.',
  }),
  rewardMinor: Type.Integer({ description: 'Reward value booked by the grant, minor units.' }),
  card: Type.Union([Type.String(), Type.Null()]),
  granted: Type.Boolean(),
  state: Type.Union([Type.Literal('open'), Type.Literal('granted'), Type.Literal('returned')], {
    description:
      'open: uploaded, not granted; granted: granted, nothing returned; returned: a return booked.',
  }),
};

export const BasketListingSchema = Type.Object(BasketFields, { title: 'PortalBasket' });

export const BasketDetailSchema = Type.Object(
  {
    ...BasketFields,
    cardType: Type.Union([Type.Literal('customer'), Type.Literal('gift'), Type.Null()]),
    offsetMinutes: Type.Integer(),
    uploadedAt: Type.String({ format: 'date-time' }),
    grantedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    redeemedInPos: Type.Union([Type.Boolean(), Type.Null()]),
    positions: Type.Array(
      Type.Object({
        positionId: Type.Integer(),
        plu: Nullable(Type.String()),
        name: Nullable(Type.String()),
        amount: Type.Number({ description: 'As the till sent it (pieces, or kg when unit is 1).' }),
        unit: Type.Integer(),
        unitPriceMinor: Nullable(Type.Integer()),
        lineMinor: Nullable(Type.Integer({ description: 'Unit price times amount, minor units.' })),
        rewards: Type.Array(
          Type.Object({ name: Type.String(), couponId: Type.Integer(), valueMinor: Type.Integer() }),
          { description: 'The rewards the grant booked on this position.' },
        ),
      }),
      { description: 'The line items as the till sent them.' },
    ),
    rewards: Type.Array(
      Type.Object({
        name: Type.String(),
        couponId: Type.Integer(),
        positionId: Type.Integer(),
        valueMajor: Type.Number(),
      }),
    ),
    offered: Type.Array(Type.Object({ couponId: Type.Integer(), name: Type.String() }), {
      description:
        'A basket not granted yet: the campaigns whose rewards its upload offered the till (the grant evaluates again and books what it gives then); empty once granted, when rewards holds what was booked.',
    }),
    loyalty: Type.Array(
      Type.Object({
        loyaltyId: Type.Integer(),
        name: Type.String(),
        previousPoints: Type.Integer(),
        newPoints: Type.Integer(),
      }),
    ),
    returns: Type.Array(
      Type.Object({
        returnId: Type.String(),
        createdAt: Type.String({ format: 'date-time' }),
        positions: Type.Array(
          Type.Object({
            positionId: Type.Integer(),
            amount: Type.String({ description: 'As the till sent it: pieces, or kg for a weighed article.' }),
          }),
          { description: 'What the till took back.' },
        ),
        valueMinor: Type.Union([Type.Integer(), Type.Null()], {
          description:
            'What the till refunded, as the dashboard counts a return: the line gross taken back less the rewards the return refunded; null for returns booked before that was kept.',
        }),
      }),
    ),
    receiptUrl: Type.Union([Type.String(), Type.Null()], {
      description: 'The digital receipt, once one exists for the basket.',
    }),
    receiptMail: ReceiptMailSchema(
      "What became of the consumer's purchase notification (mail and push) for this basket's receipt; null when none was written (no receipt yet, no profile, a gift card, or a profile with neither an e-mail address nor a browser subscribed to push).",
    ),
  },
  { title: 'PortalBasketDetail' },
);

export const MovementSchema = Type.Object(
  {
    transactionId: Type.String(),
    kind: Type.String({ description: 'top_up, withdrawal, merge, charge or refund.' }),
    amountMinor: Type.Integer({ description: 'Signed: + credited to the balance, - taken from it.' }),
    balanceAfterMinor: Type.Integer({ description: 'The sum of the movements up to this one.' }),
    channel: Type.Union(
      [Type.Literal('till'), Type.Literal('checkout'), Type.Literal('portal'), Type.Literal('operator')],
      { description: 'The interface that booked it (a portal correction is "portal").' },
    ),
    terminal: Nullable(Type.String({ description: "The till's instanceName, for a till's movement." })),
    reason: Nullable(Type.String({ description: 'The reason of a portal correction.' })),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { title: 'PortalBalanceMovement' },
);

const BalanceHistory = Type.Array(MovementSchema, {
  description:
    'The newest 100 movements of the balance, whichever interface booked it, newest first; the newest balanceAfterMinor is the balance. Every one, page by page: GET /cards/{tokenId}/balanceHistory or /profiles/{profileId}/balanceHistory.',
});

export const PointsMovementSchema = Type.Object(
  {
    kind: Type.String({
      description:
        'earn, spend, return_earned, return_spent, move_out or move_in (to or from a card linked to the customer).',
    }),
    points: Type.Integer({
      description:
        'Signed: + earned or given back, - spent or taken back. What one booking did of this kind, over every lot it touched; a move between a card and its customer within the same history, and a move of 0 points, are not listed.',
    }),
    basketId: Type.Union([Type.String(), Type.Null()], {
      description: 'The basket that booked it, if one did.',
    }),
    trackingUnitId: Type.Union([Type.String(), Type.Null()], {
      description:
        "The basket's till: with basketId, the basket at GET /baskets/{trackingUnitId}/{basketId}.",
    }),
    linkedCard: Type.Union([Type.String(), Type.Null()], {
      description:
        'For move_in and move_out: the card whose points moved to its customer when it was linked (the card they came from).',
    }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { title: 'PortalPointsMovement' },
);

/** The customer search's text: the list of customers and its CSV take it alike. */
export const ConsumerText = Type.String({
  minLength: 2,
  maxLength: 100,
  description:
    "Part of the name or e-mail; case-insensitive, accented letters read as plain ones and umlauts as their two-letter spellings (muller and mueller find Müller). Without it, every one of the merchant's customers.",
});

export const ProfileSchema = Type.Object(
  {
    profileId: Type.Integer(),
    fullName: Nullable(Type.String()),
    email: Nullable(Type.String()),
    language: Nullable(
      Type.String({
        description:
          "The language of its receipts and mails as kept (a language tag: German for one starting with de, English otherwise); null: the receipt's (German for a merchant in a German-speaking time zone, else English).",
      }),
    ),
    balanceMinor: Type.Integer(),
    currency: Type.String(),
    points: Type.Integer({
      description:
        "Points it holds in every scheme together, on the profile and the cards it holds, used up and expired lots left out (the CSV's rule).",
    }),
    cards: Type.Array(
      Type.Object({
        tokenId: Type.String(),
        tokenType: Type.Union([Type.Literal('customer'), Type.Literal('gift')]),
        state: Type.String(),
      }),
    ),
    balanceHistory: BalanceHistory,
    pointsHistory: Type.Array(PointsMovementSchema, {
      description:
        'The newest 100 points movements of the customer and of the cards they hold, newest first. Every one, page by page: GET /profiles/{profileId}/pointsHistory.',
    }),
    tiers: Type.Array(TierStatusSchema, {
      description: 'Status tiers: where it stands in each scheme with tiers.',
    }),
    campaignUses: Type.Array(
      Type.Object({
        campaignId: Type.Integer(),
        name: Type.String(),
        limit: Type.Integer({ description: "The campaign's usage limit per customer." }),
        used: Type.Integer({
          description:
            'Uses the customer has had, at the tills and in online orders; returns and orders refunded in whole released.',
        }),
        paused: Type.Boolean({ description: 'Paused by the merchant: it gives nothing now.' }),
      }),
      {
        description:
          "The merchant's campaigns not ended that have a usage limit per customer, oldest first, with this customer's uses of each: the count the tills and the orders go by (docs/decisions.md, \"A customer's uses on their page\").",
      },
    ),
    emailChanges: Type.Array(
      Type.Object({
        oldEmail: Nullable(Type.String()),
        newEmail: Nullable(Type.String()),
        at: Type.String({ format: 'date-time' }),
        by: Type.String({ description: "The portal user's e-mail address." }),
      }),
      { description: 'Corrections of the e-mail address in the portal, newest first (the latest 20).' },
    ),
    undeliveredReceipts: Type.Integer({
      description:
        'Receipts of its baskets and of its checkout orders paid from the balance whose mail was refused or given up (at most 100): what POST /profiles/{profileId}/receiptMails sends again.',
    }),
    welcomeMail: ReceiptMailSchema(
      'What became of its latest welcome mail, worded as a receipt mail (not_sent: it had no address when the mail was due); null when none was queued. POST /profiles/{profileId}/welcomeMail sends one (again).',
    ),
  },
  { title: 'PortalProfile' },
);

export const CardSchema = Type.Object(
  {
    tokenId: Type.String(),
    tokenType: Type.Union([Type.Literal('customer'), Type.Literal('gift')]),
    state: Type.String(),
    currency: Type.String(),
    balanceMinor: Type.Integer({
      description: 'The balance the card pays from (its profile’s when linked).',
    }),
    profileId: Type.Union([Type.Integer(), Type.Null()]),
    holder: Type.Union(
      [
        Type.Object({
          profileId: Type.Integer(),
          fullName: Nullable(Type.String()),
          email: Nullable(Type.String()),
        }),
        Type.Null(),
      ],
      { description: 'The consumer profile the card is linked to; null when none.' },
    ),
    purchases: Type.Object({
      purchases: Type.Integer({
        description:
          'Granted baskets bought with the card, and checkout orders paid from the balance it pays from (its profile’s): those its balance history shows a charge of.',
      }),
      orders: Type.Integer({ description: 'Of them, the checkout orders.' }),
      visits: Type.Integer({ description: "Days with a purchase, in the merchant's time zone." }),
      lifetimeSpendMinor: Type.Integer({
        description:
          'The baskets’ sales from the positions less rewards and less what their returns refunded (as the dashboard counts returns), and what the orders charged less what refunds gave back.',
      }),
    }),
    recentBaskets: Type.Array(BasketListingSchema, { description: 'The newest 10 baskets with the card.' }),
    recentOrders: Type.Array(
      Type.Object({
        orderId: Type.String(),
        basketId: Type.String({
          description:
            "The shop's own key of the order (`basketId` of the checkout interface), as the order list shows it.",
        }),
        shop: Nullable(Type.String({ description: 'The shop (checkout client) it was placed in.' })),
        createdAt: Type.String({ format: 'date-time' }),
        totalGrossMinor: Type.Integer(),
        chargedMinor: Type.Integer({ description: 'Paid from the balance.' }),
        refundedMinor: Type.Integer({ description: 'Given back to the balance by refunds so far.' }),
        status: Type.Union([Type.Literal('completed'), Type.Literal('refunded')]),
      }),
      {
        description:
          'The newest 10 checkout orders paid from the balance the card pays from (its profile’s), newest first; none without a profile.',
      },
    ),
    balanceHistory: BalanceHistory,
    points: Type.Integer({ description: 'Points it holds in every scheme together.' }),
    transfers: Type.Array(
      Type.Object({
        transactionId: Type.String(),
        kind: Type.String(),
        amountMinor: Type.Integer(),
        balanceAfterMinor: Type.Integer(),
        reason: Type.Union([Type.String(), Type.Null()], {
          description: 'The reason of a portal correction.',
        }),
        createdAt: Type.String({ format: 'date-time' }),
      }),
    ),
    pointsHistory: Type.Array(PointsMovementSchema, {
      description:
        'The newest 100 points movements of the card and of its customer, newest first. Every one, page by page: GET /cards/{tokenId}/pointsHistory.',
    }),
    locks: Type.Array(
      Type.Object({
        action: Type.Union([Type.Literal('lock'), Type.Literal('unlock')]),
        by: Nullable(
          Type.String({
            description: 'The e-mail of the portal user who did it; null when a till locked it.',
          }),
        ),
        trackingUnitId: Nullable(
          Type.String({
            description: 'The till that locked it through the POS interface; null for a portal user.',
          }),
        ),
        reason: Nullable(Type.String({ description: 'The reason given, if any.' })),
        at: Type.String({ format: 'date-time' }),
      }),
      { description: 'Every lock and unlock of the card, newest first (at most 100).' },
    ),
    otps: Type.Array(
      Type.Object({
        by: Type.String({ description: 'The e-mail of the portal user who issued it.' }),
        issuedAt: Type.String({ format: 'date-time' }),
        expiresAt: Type.String({ format: 'date-time' }),
      }),
      {
        description:
          "The one-time passwords issued in the portal for the card's consumer, newest first (at most 100); never the password.",
      },
    ),
  },
  { title: 'PortalCard' },
);
