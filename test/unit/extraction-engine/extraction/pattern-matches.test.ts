import { describe, expect, it } from 'vitest';
import { matchesOf } from '../../../../src/extraction-engine/values/pattern-matches.ts';

describe('matchesOf', () => {
  const asMatchAllGives = (pattern: RegExp, text: string) => [...text.matchAll(new RegExp(pattern.source, pattern.flags))].map((match) => [match.index, ...match]);
  const asMatchesOfGives = (pattern: RegExp, text: string) => matchesOf(pattern, text).map((match) => [match.index, ...match]);

  it.each([
    [/\d+[.,]\d{2}/g, 'Total 12.50 EUR, tax 2,38'],
    [/(?<![\p{L}])(Sdn\.? ?Bhd)(?![\p{L}])/giu, 'ACME SDN BHD and Foo Sdn. Bhd'],
    [/x*/g, 'axxb'],
    [/(?:)/gu, 'a😀b'],
    [/\S+/gu, '  two  words '],
  ])('gives what matchAll gives for %s', (pattern, text) => {
    expect(asMatchesOfGives(pattern, text)).toEqual(asMatchAllGives(pattern, text));
  });

  it('leaves the pattern ready for its next use, even after a caller left lastIndex elsewhere', () => {
    const pattern = /\d/g;
    pattern.lastIndex = 5;

    expect(matchesOf(pattern, '1 2 3').map((match) => match[0])).toEqual(['1', '2', '3']);
    expect(pattern.lastIndex).toBe(0);
  });
});
