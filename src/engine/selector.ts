import type { EnginePosition, Selector } from './types.js';

/** A PLU selector matches the position's ProductId exactly; a group selector its group or an ancestor. */
export function selectorMatches(selector: Selector, position: EnginePosition): boolean {
  if ('plu' in selector) return position.productId !== null && position.productId === selector.plu;
  return position.groupIds.includes(selector.group);
}

/** An empty list selects every article. */
export function anySelectorMatches(selectors: readonly Selector[], position: EnginePosition): boolean {
  if (selectors.length === 0) return true;
  for (const s of selectors) if (selectorMatches(s, position)) return true;
  return false;
}
