import { Type } from 'typebox';

/** The operator API's answers about merchants, terminals, DevKeys and balance bookings. */

export const UnitSchema = Type.Object({
  trackingUnitId: Type.String(),
  instanceName: Type.String(),
  outletId: Type.Integer(),
  sortimentId: Type.Union([Type.Integer(), Type.Null()]),
  activated: Type.Boolean(),
  deactivated: Type.Boolean({
    description: 'Deactivated by the operator: refused on every operation (1042).',
  }),
  requireSecurityTokenV2: Type.Boolean({
    description: 'The MD5 SecurityToken is refused; SecurityToken-V2 only.',
  }),
  devKeyId: Type.Integer({ description: 'The DevKey that registered the terminal.' }),
  devKeyName: Type.String({ description: 'Its name: the POS vendor.' }),
  devKeyRevoked: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
});

export const TerminalStateSchema = Type.Object({
  trackingUnitId: Type.String(),
  activated: Type.Boolean(),
  deactivated: Type.Boolean(),
  requireSecurityTokenV2: Type.Boolean(),
});

export const DevKeySchema = Type.Object({
  id: Type.Integer(),
  name: Type.String({ description: 'The POS vendor.' }),
  createdAt: Type.String({ format: 'date-time' }),
  revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const MerchantSecuritySchema = Type.Object({
  serviceUserName: Type.String(),
  requireTransactionId: Type.Boolean({
    description:
      'addBalance and withdrawBalance need a transactionId (400 / 1041 without), and the MD5 SecurityToken ' +
      'then covers id + amount + transactionId.',
  }),
});

export const TransferSchema = Type.Object({
  transactionId: Type.String(),
  kind: Type.String({ description: 'top_up, withdrawal or merge.' }),
  amount: Type.Integer({ description: 'Minor units.' }),
  currency: Type.String(),
  tokenId: Type.Union([Type.String(), Type.Null()]),
  trackingUnitId: Type.Union([Type.String(), Type.Null()]),
  balanceAfter: Type.Integer({ description: 'Minor units: the addressed account right after the booking.' }),
  createdAt: Type.String({ format: 'date-time' }),
  authorisedBy: Type.String({
    description: 'md5 or v2 (SecurityToken), operator, or unrecorded (booked before this was recorded).',
  }),
  authorisationSha256: Type.Union([Type.String(), Type.Null()], {
    description: 'SHA-256 (hex) of the MD5 token text or of the V2 signature bytes that authorised it.',
  }),
});
