export { buildCampaignIndex, type CampaignIndex, type IndexedCampaign } from './campaign-index.js';
export { evaluateBasket } from './evaluate.js';
export type * from './types.js';
