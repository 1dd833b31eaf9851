import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// WCAG 2.1 contrast of the console's colours, read from its stylesheet: text at least 4.5:1 on every
// background it is drawn on, box borders (non-text) at least 3:1 against the page.

const stylesheet = readFileSync(new URL('../../../src/console/console.css', import.meta.url), 'utf8');
const variables = Object.fromEntries([...stylesheet.matchAll(/--([a-z]+):\s*(#[0-9a-f]{6})/g)].map(([, name, value]) => [name!, value!]));
const colour = (name: string) => variables[name] ?? name;

function relativeLuminance(hex: string): number {
  const [red, green, blue] = [1, 3, 5].map((start) => {
    const channel = parseInt(hex.slice(start, start + 2), 16) / 255;
    return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * red! + 0.7152 * green! + 0.0722 * blue!;
}

function contrast(foreground: string, background: string): number {
  const [lighter, darker] = [relativeLuminance(colour(foreground)), relativeLuminance(colour(background))].sort((left, right) => right - left);
  return (lighter! + 0.05) / (darker! + 0.05);
}

describe('console colours', () => {
  it.each([
    ['text', 'background'],
    ['text', 'surface'],
    ['text', '#dbe9f8'], // a selected fields row
    ['muted', 'background'],
    ['muted', 'surface'],
    ['accent', 'background'],
    ['accent', 'surface'],
    ['#ffffff', 'accent'], // a submit button
    ['high', 'background'],
    ['low', 'background'],
    ['unknown', 'background'],
    ['unknown', 'surface'],
    ['#8c1d18', '#fdecea'], // an error notice
    ['#8c1d18', 'background'], // "Needs review"
  ])('draws %s text on %s at 4.5:1 or more', (foreground, background) => {
    expect(contrast(foreground, background)).toBeGreaterThanOrEqual(4.5);
  });

  it.each(['high', 'medium', 'low', 'unknown', 'focus', 'border'])('draws %s borders at 3:1 or more against the page', (border) => {
    expect(contrast(border, 'background')).toBeGreaterThanOrEqual(3);
  });

  it('reads every colour it checks from the stylesheet', () => {
    expect(Object.keys(variables)).toEqual(expect.arrayContaining(['text', 'muted', 'background', 'surface', 'border', 'accent', 'focus', 'high', 'medium', 'low', 'unknown']));
  });
});
