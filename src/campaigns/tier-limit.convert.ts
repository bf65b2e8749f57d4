import type { TierLimit } from '../engine/types.js';
import { fail } from './rule-definition-error.js';
import type { CampaignBody } from './rule.schemas.js';

/**
 * A campaign limited to status tiers of one loyalty scheme (docs/decisions.md, "Status tiers"):
 * the body's `tiers: {schemeId, names}` to the engine's, names trimmed and unique ignoring case.
 */
export function tierLimitToEngine(body: CampaignBody): TierLimit | null {
  const t = body.tiers;
  if (t === undefined || t === null) return null;
  if (!Number.isSafeInteger(t.schemeId) || t.schemeId < 1)
    fail('tiers.schemeId', 'must be a loyalty scheme id.');
  if (t.names.length === 0)
    fail('tiers.names', 'must name at least one tier; omit tiers (or null) for everyone.');
  const seen = new Set<string>();
  const names = t.names.map((raw, i) => {
    const name = raw.trim();
    if (name === '') fail(`tiers.names[${i}]`, 'must not be empty.');
    if (seen.has(name.toLowerCase())) fail(`tiers.names[${i}]`, `"${name}" is named twice.`);
    seen.add(name.toLowerCase());
    return name;
  });
  return { schemeId: t.schemeId, names };
}

/**
 * The limit names tiers the scheme (the merchant's scheme of that id as read now, null: none)
 * defines: not ended, with tiers, and each name one of them (ignoring case). Throws
 * RuleDefinitionError naming the field.
 */
export function checkTierLimit(
  limit: TierLimit | null,
  scheme: { readonly endedAt: Date | null; readonly engine: Record<string, unknown> } | null,
): void {
  if (limit === null) return;
  if (scheme === null || scheme.endedAt !== null) {
    fail('tiers.schemeId', `names ${limit.schemeId}, not a loyalty scheme of this merchant that runs.`);
  }
  const tiers = (scheme.engine as { tiers?: { name: string }[] }).tiers ?? [];
  if (tiers.length === 0) fail('tiers.schemeId', `names a loyalty scheme without status tiers.`);
  const defined = new Set(tiers.map((t) => t.name.toLowerCase()));
  limit.names.forEach((name, i) => {
    if (!defined.has(name.toLowerCase())) {
      fail(
        `tiers.names[${i}]`,
        `"${name}" is not a tier of the scheme (${tiers.map((t) => t.name).join(', ')}).`,
      );
    }
  });
}
