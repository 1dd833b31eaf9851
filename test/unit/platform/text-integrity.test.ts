import { describe, expect, it } from 'vitest';
import { maximumDefectsReported, textDefectOf, textDefectsIn } from '../../../src/platform/text-integrity.ts';

describe('textDefectOf', () => {
  it.each([['plain ASCII', 'Order 42'], ['letters outside ASCII', 'Bestellung für Müller'], ['a surrogate pair (an emoji)', 'receipt 🧾'], ['the empty string', '']])(
    'finds nothing wrong with %s',
    (_case, text) => {
      expect(textDefectOf(text)).toBeUndefined();
    },
  );

  it.each([
    ['a lone high surrogate', 'a\uD800b', 'lone surrogate'],
    ['a lone low surrogate', '\uDFFF', 'lone surrogate'],
    ['a pair in the wrong order', '\uDE00\uD83D', 'lone surrogate'],
    ['U+FFFD, where a decoder met bytes that are not UTF-8', 'caf\uFFFD', 'not UTF-8'],
  ])('refuses %s', (_case, text, reason) => {
    expect(textDefectOf(text)).toContain('well-formed Unicode');
    expect(textDefectOf(text)).toContain(reason);
  });
});

describe('textDefectsIn', () => {
  it('names every defective string and key by its path, in document order', () => {
    const value = JSON.parse('{"name":"ok","items":[{"title":"a\\ud800"},"fine","\\udfff"],"labels":{"\\ud800":"v","k":"caf\\ufffd"}}');

    expect(textDefectsIn(value)).toEqual([
      { path: ['items', 0, 'title'], defect: expect.stringContaining('lone surrogate') },
      { path: ['items', 2], defect: expect.stringContaining('lone surrogate') },
      { path: ['labels', '\uD800'], defect: expect.stringMatching(/^as a key .*lone surrogate/) },
      { path: ['labels', 'k'], defect: expect.stringContaining('not UTF-8') },
    ]);
  });

  it('finds nothing in well-formed values of every JSON type', () => {
    expect(textDefectsIn({ a: 1, b: [true, null, 'x', { c: '🧾' }], d: 'ü' })).toEqual([]);
    expect(textDefectsIn('plain')).toEqual([]);
    expect(textDefectsIn(null)).toEqual([]);
  });

  it('walks a value nested far deeper than the call stack allows', () => {
    let nested: unknown = '\uD800';
    for (let depth = 0; depth < 100_000; depth++) nested = [nested];

    const defects = textDefectsIn(nested);

    expect(defects).toHaveLength(1);
    expect(defects[0]!.path).toHaveLength(100_000);
  });

  it('stops at a bounded number of defects', () => {
    expect(textDefectsIn(Array.from({ length: 10_000 }, () => '\uD800'))).toHaveLength(maximumDefectsReported);
  });
});
