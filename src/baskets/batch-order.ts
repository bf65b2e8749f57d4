/**
 * The items of a batch with their places, sorted by terminal and basket: a fixed order of rows
 * keeps two batches from locking in opposite order. The sort is stable, so a basket sent twice is
 * written in the order the requests came.
 */
export function inBasketOrder<T extends { readonly unitId: string; readonly basketId: string }>(
  items: readonly T[],
): { item: T; index: number }[] {
  const key = (t: T) => `${t.unitId}\u0000${t.basketId}`;
  return items
    .map((item, index) => ({ item, index, k: key(item) }))
    .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0))
    .map(({ item, index }) => ({ item, index }));
}
