import { describe, expect, it } from 'vitest';
import { BoundedCache } from '../../src/shared/bounded-cache.js';

describe('the bounded cache', () => {
  it('holds at most its limit, the least recently used out first', () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1); // a is now the most recently used
    cache.set('c', 3);
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
  });

  it('forgets an entry once it is as old as the age limit', () => {
    const cache = new BoundedCache<string, number>(10, 60_000);
    cache.set('a', 1, 1_000);
    expect(cache.get('a', 60_999)).toBe(1);
    expect(cache.get('a', 61_000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('setting a key again replaces it and delete removes it', () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set('a', 1);
    cache.set('a', 2);
    expect(cache.size).toBe(1);
    expect(cache.get('a')).toBe(2);
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
  });

  it('getOrSet builds a missing value once and keeps nothing when building throws', () => {
    const cache = new BoundedCache<string, number>(2);
    let built = 0;
    const make = () => {
      built++;
      return 7;
    };
    expect(cache.getOrSet('a', make)).toBe(7);
    expect(cache.getOrSet('a', make)).toBe(7);
    expect(built).toBe(1);
    expect(() =>
      cache.getOrSet('b', () => {
        throw new RangeError('unknown');
      }),
    ).toThrow(RangeError);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.size).toBe(1);
  });
});
