import { Type } from 'typebox';

/**
 * POS v3 basket request and response, as the document describes them (field casing included): the
 * POS routes take and answer them, and the dry run of the operator API and the merchant portal
 * answers in the same shapes.
 */

const Text = (max: number, description?: string) =>
  Type.String({ maxLength: max, ...(description ? { description } : {}) });

export const PositionSchema = Type.Object(
  {
    PositionId: Type.Integer({ minimum: 0, description: 'Unique within the basket; rewards refer to it.' }),
    ProductId: Type.Optional(Text(100, 'PLU under which the product was uploaded to a sortiment.')),
    ProductName: Type.Optional(Text(500)),
    Unit: Type.Integer({ enum: [0, 1], description: '0 = pieces, 1 = kilograms.' }),
    Amount: Type.Number({ exclusiveMinimum: 0, description: 'Quantity in the unit given (decimal).' }),
    RegularGrossPrice: Type.Optional(
      Type.Number({ minimum: 0, description: 'Normal selling price per unit.' }),
    ),
    CurrentGrossPrice: Type.Optional(
      Type.Number({ minimum: 0, description: 'Price per unit on this bill; RegularGrossPrice when absent.' }),
    ),
    HasDiscounts: Type.Optional(
      Type.Boolean({ description: 'true: this position takes part in no reward.' }),
    ),
    VatInPercent: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
    OrderTime: Type.Optional(
      Text(40, 'Booking time of the position, ISO 8601 with time zone (happy hours).'),
    ),
    ImageUrl: Type.Optional(Text(2000)),
    ProductProps: Type.Optional(
      Type.Record(Type.String(), Type.String({ maxLength: 2000 }), {
        description: 'Shown on the digital receipt. XML: KeyValueOfstringstring children with Key and Value.',
      }),
    ),
  },
  { xml: { name: 'Position' }, title: 'Position' },
);

export const BasketSchema = Type.Object(
  {
    Timestamp: Text(40, 'Time of billing, ISO 8601 with time zone.'),
    HasDiscounts: Type.Boolean({
      description: 'true: no rewards and no point redemptions; points are still earned.',
    }),
    CurrencyISO: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$' })),
    WaiterName: Type.Optional(Text(200)),
    BillPdf: Type.Optional(
      Type.String({
        description:
          'PDF copy of the bill, base64. The bytes must be a PDF (start with %PDF-, end with %%EOF), else 400 / 11015.',
        contentEncoding: 'base64',
      }),
    ),
    ContextIdentifiers: Type.Optional(
      Type.Array(Text(200), {
        maxItems: 100,
        description: 'Coupon codes, a customer-card id or a one-time password of a profile.',
      }),
    ),
    BillNumber: Type.Optional(Text(100)),
    TotalValue: Type.Optional(Type.Number()),
    TableId: Type.Optional(Text(100)),
    Positions: Type.Optional(Type.Array(PositionSchema, { maxItems: 5000 })),
  },
  { xml: { name: 'Basket' }, title: 'Basket' },
);

export const RewardSchema = Type.Object(
  {
    RewardType: Type.Integer({ description: '1 = on a product, 2 = on the bill total.' }),
    ProductId: Type.String(),
    GrossRewardValue: Type.Number(),
    RewardTriggeringPositionId: Type.Integer(),
    CouponId: Type.Integer(),
    Name: Type.String(),
  },
  { xml: { name: 'Reward' }, title: 'Reward' },
);

export const LoyaltyDetailSchema = Type.Object(
  {
    PreviousPoints: Type.Number({ description: 'Committed points before this basket.' }),
    NewPoints: Type.Number({ description: 'Points balance after it: previous plus earned minus spent.' }),
    PointsInScheme: Type.Number({ description: 'The threshold of the scheme reward.' }),
    GrossRewardValue: Type.Number({ description: 'Value redeemed in this basket, 0 if none.' }),
    RewardTriggeringPositionId: Type.Integer({ description: 'Position it applies to; 0 for a bill reward.' }),
  },
  { xml: { name: 'Detail' }, title: 'Detail' },
);

export const LoyaltyInfoSchema = Type.Object(
  {
    LoyaltyId: Type.Integer(),
    Name: Type.String(),
    Details: Type.Array(LoyaltyDetailSchema),
  },
  { xml: { name: 'Loyalty' }, title: 'Loyalty' },
);

export const BalanceSchema = Type.Object(
  { TokenId: Type.String(), Balance: Type.Number(), CurrencyISO: Type.String() },
  { xml: { name: 'TokenBalance' }, title: 'BasketTokenBalance' },
);

export const BasketResponseSchema = Type.Object(
  {
    Rewards: Type.Array(RewardSchema),
    LoyaltyInfo: Type.Array(LoyaltyInfoSchema),
    Balances: Type.Optional(Type.Array(BalanceSchema, { description: 'When a card was given.' })),
  },
  { xml: { name: 'BasketResponse' }, title: 'BasketResponse' },
);

export const GrantResponseSchema = Type.Object(
  {
    BasketId: Type.String(),
    Granted: Type.Boolean(),
    Rewards: Type.Array(RewardSchema),
    LoyaltyInfo: Type.Array(LoyaltyInfoSchema),
  },
  { xml: { name: 'GrantResponse' }, title: 'GrantResponse' },
);
