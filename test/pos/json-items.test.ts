import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { jsonSource } from '../../src/wire/bulk-body.js';
import { scanJsonItems } from '../../src/wire/json-items.js';
import { NUL_REFUSED, SURROGATE_REFUSED } from '../../src/wire/request-guards.js';
import { SegmentedBytes } from '../../src/wire/segmented-bytes.js';

/**
 * A JSON bulk upload is read item by item (docs/decisions.md, "Sortiment"): the body is kept in
 * segments as it arrives, never joined into one buffer, and the bytes of each article are let go
 * once it is read, so the body shrinks while the upload writes.
 */

/** Small segments, so that the edges between them are met often (the service's are 32 MiB). */
const BITS = 12;
const SEGMENT = 1 << BITS;

function article(plu: number): Record<string, unknown> {
  return {
    PLU: String(plu),
    GroupId: 'G',
    Name: [{ lang: 'de', val: `Käse-Brötchen ${plu} – groß` }],
    Prices: [{ Value: 1.2, CurrencyIso: 'EUR' }],
  };
}

function body(articles: number): Buffer {
  const list = Array.from({ length: articles }, (_, i) => article(i));
  return Buffer.from(JSON.stringify({ Groups: [{ Id: 'G' }], Articles: list }), 'utf8');
}

/** The body as a client's small chunks arrive. */
function received(buf: Buffer, chunk: number): SegmentedBytes {
  const bytes = new SegmentedBytes(BITS);
  for (let at = 0; at < buf.length; at += chunk) bytes.append(buf.subarray(at, at + chunk));
  return bytes.seal();
}

describe('JSON bulk bodies kept in segments', () => {
  it('text read across a segment boundary keeps a character split between two segments whole', () => {
    const prefix = 'a'.repeat(SEGMENT - 1);
    const buf = Buffer.from(`${prefix}é and more`, 'utf8');
    const bytes = received(buf, 1000);
    expect(bytes.length).toBe(buf.length);
    expect(bytes.text(SEGMENT - 3, SEGMENT + 5)).toBe('aaé and');
    expect(bytes.indexOf(0x20, SEGMENT - 5)).toBe(SEGMENT + 1);
    expect(bytes.at(buf.length)).toBe(-1);
  });

  it('an article read from chunks as they arrive equals the article sent', () => {
    const buf = body(3_000);
    const source = jsonSource(received(buf, 16_384));
    expect(source.articleCount).toBe(3_000);
    expect(source.groups).toEqual([{ Id: 'G' }]);
    for (let i = 0; i < 3_000; i++) expect(source.article(i)).toEqual(article(i));
  });

  it("an article's raw hash is the hash of its bytes as sent, across segment boundaries too", () => {
    const buf = body(3_000);
    const source = jsonSource(received(buf, 16_384));
    for (let i = 0; i < 3_000; i++) {
      const text = JSON.stringify(article(i));
      expect(source.rawHash?.(i, 'salt:')).toBe(
        createHash('sha256').update(`salt:${text}`).digest('base64url'),
      );
    }
    // Another salt for the same source (another merchant's currency) hashes with that one.
    const text = JSON.stringify(article(2_999));
    expect(source.rawHash?.(2_999, 'ünd:')).toBe(
      createHash('sha256').update(`ünd:${text}`).digest('base64url'),
    );
  });

  it('the bytes of the articles read are let go: half read holds what follows, all read at most one segment', () => {
    const buf = body(4_000);
    expect(buf.length).toBeGreaterThan(64 * SEGMENT);
    const bytes = received(buf, 1_500);
    const source = jsonSource(bytes);
    expect(bytes.retained()).toBe(buf.length);
    for (let i = 0; i < 2_000; i++) source.article(i);
    // What is held is what follows the last article read, from the start of its segment.
    const unread = buf.length - buf.indexOf('{"PLU":"2000"');
    expect(bytes.retained()).toBeGreaterThanOrEqual(unread);
    expect(bytes.retained()).toBeLessThanOrEqual(unread + SEGMENT);
    for (let i = 2_000; i < 4_000; i++) source.article(i);
    expect(bytes.retained()).toBeLessThanOrEqual(SEGMENT);
  });

  it('a byte order mark before the document is not part of the JSON text', () => {
    const buf = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body(2)]);
    expect(jsonSource(SegmentedBytes.of(buf, BITS)).article(1)).toEqual(article(1));
  });

  it('Text must not contain U+0000 or an unpaired surrogate, in an article or a field name', () => {
    const nul = Buffer.from('{"Articles":[{"PLU":"1"},{"PLU":"a\\u0000b"}]}');
    const items = scanJsonItems(SegmentedBytes.of(nul));
    expect(items.item('articles', 0)).toEqual({ PLU: '1' });
    expect(() => items.item('articles', 1)).toThrow(NUL_REFUSED);
    const surrogate = Buffer.from('{"Art\\ud800icles":[]}');
    expect(() => scanJsonItems(SegmentedBytes.of(surrogate))).toThrow(SURROGATE_REFUSED);
    // An escaped backslash before "u0000" is text, not the escape of U+0000.
    const text = Buffer.from('{"Articles":[{"PLU":"a\\\\u0000b"}]}');
    expect(scanJsonItems(SegmentedBytes.of(text)).item('articles', 0)).toEqual({ PLU: 'a\\u0000b' });
  });

  it('a body of white space only is blank; an empty one too', () => {
    expect(SegmentedBytes.of(Buffer.from(' \r\n\t ')).isBlank()).toBe(true);
    expect(SegmentedBytes.of(Buffer.alloc(0)).isBlank()).toBe(true);
    expect(SegmentedBytes.of(Buffer.from(' {} ')).isBlank()).toBe(false);
  });
});
