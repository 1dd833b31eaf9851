import { describe, expect, it } from 'vitest';
import { colorsEnabled, painterFor } from '../../../src/cli/terminal-style.ts';

const terminal = { write: () => true, isTTY: true };
const pipe = { write: () => true };

describe('colorsEnabled', () => {
  it('colours a terminal only', () => {
    expect(colorsEnabled(terminal, {})).toBe(true);
    expect(colorsEnabled(pipe, {})).toBe(false);
  });

  it('respects NO_COLOR (any non-empty value) and TERM=dumb', () => {
    expect(colorsEnabled(terminal, { NO_COLOR: '1' })).toBe(false);
    expect(colorsEnabled(terminal, { NO_COLOR: '' })).toBe(true);
    expect(colorsEnabled(terminal, { TERM: 'dumb' })).toBe(false);
  });
});

describe('painterFor', () => {
  it('wraps text in escape codes when colours are on, and leaves it alone when off', () => {
    expect(painterFor(true)('green', 'COMPLETED')).toBe('\u001b[32mCOMPLETED\u001b[39m');
    expect(painterFor(false)('green', 'COMPLETED')).toBe('COMPLETED');
  });
});
