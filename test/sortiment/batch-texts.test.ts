import { describe, expect, it } from 'vitest';
import { BatchTexts } from '../../src/sortiment/batch-texts.js';

/**
 * A bulk upload's batch keeps its articles' stored bodies as bytes in one reused buffer
 * (docs/decisions.md, "Sortiment"): each body read back is the text that went in.
 */
describe("a bulk upload batch's texts", () => {
  it('each text comes back as it was added, with characters of several bytes, past the first size', () => {
    const texts = new BatchTexts(64);
    const given = Array.from({ length: 50 }, (_, i) => `{"Name":"Käse-Brötchen ${i} – groß 🥨"}`);
    const places = given.map((t) => texts.add(t));
    expect(places.map((p) => texts.text(p))).toEqual(given);
  });

  it('after clear the next batch writes from the start again', () => {
    const texts = new BatchTexts(64);
    texts.add('x'.repeat(40));
    texts.clear();
    const place = texts.add('{"PLU":"é"}');
    expect(place.at).toBe(0);
    expect(texts.text(place)).toBe('{"PLU":"é"}');
  });
});
