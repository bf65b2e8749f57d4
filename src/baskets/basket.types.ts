/**
 * A basket and its answers in the vocabulary of the interface documents (field names as the
 * documents spell them, amounts in major units). The POS wire validates requests against schemas
 * of the same shapes (src/wire/documents/basket.schemas.ts); the domain works on these plain
 * types and never sees a request.
 */

/** What the basket domain needs to know of the terminal a basket comes from. */
export interface BasketTerminal {
  readonly devKeyId: number;
  readonly unitId: string;
  readonly merchantId: number;
  readonly outletId: number;
  readonly sortimentId: number | null;
  readonly currency: string;
  readonly timeZone: string;
  readonly rulesVersion: number;
}

export type BasketBody = {
  Timestamp: string;
  HasDiscounts: boolean;
  CurrencyISO?: string;
  WaiterName?: string;
  BillPdf?: string;
  ContextIdentifiers?: string[];
  BillNumber?: string;
  TotalValue?: number;
  TableId?: string;
  Positions?: PositionBody[];
};

export type PositionBody = {
  PositionId: number;
  ProductId?: string;
  ProductName?: string;
  Unit: number;
  Amount: number;
  RegularGrossPrice?: number;
  CurrentGrossPrice?: number;
  HasDiscounts?: boolean;
  VatInPercent?: number;
  OrderTime?: string;
  ImageUrl?: string;
  ProductProps?: Record<string, string>;
};

export interface RewardOut {
  RewardType: number;
  ProductId: string;
  GrossRewardValue: number;
  RewardTriggeringPositionId: number;
  CouponId: number;
  Name: string;
}

export interface LoyaltyOut {
  LoyaltyId: number;
  Name: string;
  Details: {
    PreviousPoints: number;
    NewPoints: number;
    PointsInScheme: number;
    GrossRewardValue: number;
    RewardTriggeringPositionId: number;
  }[];
}

export interface BasketResponse {
  Rewards: RewardOut[];
  LoyaltyInfo: LoyaltyOut[];
  Balances?: { TokenId: string; Balance: number; CurrencyISO: string }[];
}

export type ReturnBody = {
  ReturnId: string;
  Positions: { PositionId: number; Amount: number }[];
};

export interface ReturnResponse {
  ReturnId: string;
  RefundedRewardValue: number;
  LoyaltyInfo: LoyaltyOut[];
}

/**
 * A stored basket body read back as the upload's validation saw it: only for baskets uploaded
 * before the parsed basket was stored with them (docs/decisions.md).
 */
export type LegacyBodyReader = (stored: unknown) => BasketBody;
