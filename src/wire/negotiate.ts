/**
 * Response format of the POS wire (docs/decisions.md, "XML shape"): `Accept` when it names JSON or XML;
 * an absent `Accept` or one without a preference follows the request's `Content-Type`; without
 * a body, XML (the documented default).
 */
export type WireFormat = 'json' | 'xml';

function mediaFormat(media: string): WireFormat | null {
  const m = media.trim().toLowerCase();
  if (m === 'application/json' || m === 'text/json' || m.endsWith('+json')) return 'json';
  if (m === 'application/xml' || m === 'text/xml' || m.endsWith('+xml')) return 'xml';
  return null;
}

function fromAccept(accept: string): WireFormat | null {
  let best: WireFormat | null = null;
  let bestQ = 0;
  for (const part of accept.split(',')) {
    const [media = '', ...params] = part.split(';');
    const format = mediaFormat(media);
    if (format === null) continue;
    let q = 1;
    for (const p of params) {
      const [k, v] = p.split('=');
      if (k?.trim().toLowerCase() === 'q' && v !== undefined) {
        const parsed = Number(v.trim());
        q = Number.isFinite(parsed) ? parsed : 0;
      }
    }
    if (q > bestQ) {
      best = format;
      bestQ = q;
    }
  }
  return best;
}

export function negotiate(accept: string | undefined, contentType: string | undefined): WireFormat {
  if (accept) {
    const chosen = fromAccept(accept);
    if (chosen) return chosen;
  }
  if (contentType) {
    const format = mediaFormat(contentType.split(';')[0] ?? '');
    if (format) return format;
  }
  return 'xml';
}
