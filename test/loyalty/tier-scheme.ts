/** A loyalty scheme body with status tiers Silver (100 points) and Gold (300), 30 days rolling. */
export const TIERS = [
  { name: 'Silver', threshold: 100, multiplier: 1.5 },
  { name: 'Gold', threshold: 300, multiplier: 2 },
];

export const tierScheme = (patch: object = {}) => ({
  name: 'Coffee card',
  earn: [{ per: 'amount', amount: 1, points: 1 }],
  tiers: TIERS,
  tierBasis: { measure: 'points', period: { rollingDays: 30 } },
  ...patch,
});
