import type { Campaign } from './types.js';

/**
 * The versions whose stacking mode is exclusive, by campaign id: one id may come in two versions
 * (a new one from a day on) whose modes differ, and a reward names its campaign's id and version.
 */
export type ExclusiveVersions = ReadonlyMap<number, ReadonlySet<number>>;

export function exclusiveVersions(campaigns: readonly Campaign[]): ExclusiveVersions {
  const out = new Map<number, Set<number>>();
  for (const c of campaigns) {
    if (c.stacking?.mode !== 'exclusive') continue;
    const versions = out.get(c.id) ?? new Set<number>();
    versions.add(c.version);
    out.set(c.id, versions);
  }
  return out;
}
