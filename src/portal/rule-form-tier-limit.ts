import { type Html, html } from './html.js';
import { type Ctx, type Doc, type TierSchemeChoice, select, set } from './rule-form-widgets.js';

/**
 * A campaign's limit to status tiers in the form (docs/decisions.md, "Status tiers"): a loyalty
 * scheme with tiers (everyone: no limit, nothing sent), then the scheme's tier names to tick, sent
 * as `tiers: {schemeId, names}`. Only running schemes with tiers are offered; a merchant without one
 * reads a hint instead. A stored limit the scheme no longer fits (a tier renamed or removed, the
 * scheme ended or without tiers) is shown as stored, marked, and sent as it is, so that saving
 * shows the API's refusal beside the field rather than changing the limit unseen.
 */
export function tierLimitField(ctx: Ctx, d: Doc): Html {
  const stored = (d.tiers ?? null) as { schemeId?: unknown; names?: unknown } | null;
  const storedId = typeof stored?.schemeId === 'number' ? stored.schemeId : null;
  const storedNames = Array.isArray(stored?.names) ? stored.names.map(String) : [];
  const schemes = ctx.schemes ?? [];
  const offered: (TierSchemeChoice & { gone?: true })[] = schemes.filter(
    (s) => s.tiers.length > 0 && !s.ended,
  );
  if (storedId !== null && !offered.some((s) => s.id === storedId)) {
    const known = schemes.find((s) => s.id === storedId);
    offered.push({ id: storedId, name: known?.name ?? `#${storedId}`, tiers: [], ended: true, gone: true });
  }
  if (offered.length === 0) {
    return html`<div class="field" data-tier-hint>
      <p class="label">${ctx.t('tierLimit')}</p>
      <p class="help">${ctx.t('tierLimitNone')}</p>
    </div>`;
  }
  const choices: [string, string][] = [
    ['', ctx.t('tierLimitEveryone')],
    ...offered.map((s): [string, string] => [
      String(s.id),
      s.gone ? `${s.name} (${ctx.t('tierLimitSchemeGone')})` : s.name,
    ]),
  ];
  return html`${select(ctx, 'tiers.schemeId', 'tierLimit', choices, storedId === null ? '' : String(storedId), undefined, 'int')}
  ${offered.map((s) => tierNames(ctx, s, s.id === storedId ? storedNames : []))}`;
}

/** The tier names of one scheme to tick, shown while that scheme is chosen; stored names it lacks marked. */
function tierNames(ctx: Ctx, scheme: TierSchemeChoice, stored: string[]): Html {
  const own = (name: string) => scheme.tiers.find((t) => t.toLowerCase() === name.toLowerCase());
  const gone = stored.filter((n) => own(n) === undefined);
  const options: [string, string][] = [
    ...scheme.tiers.map((t): [string, string] => [t, t]),
    ...gone.map((n): [string, string] => [n, `${n} (${ctx.t('tierLimitGone')})`]),
  ];
  const ticked = stored.map((n) => own(n) ?? n);
  return set(ctx, 'tiers.names', 'tierLimitNames', options, ticked, 'text', `tiers.schemeId=${scheme.id}`);
}
