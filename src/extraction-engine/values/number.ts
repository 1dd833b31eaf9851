// Plain numbers and counts, using the same separator rules as amounts ("1.234,5", "1,234.5").

import { readNumberBody } from './amount.ts';

/** A whole value that is one number ("12", "-3,5", "1 234,56", "1.5e3" is not accepted). */
export function parseNumber(text: string): number | undefined {
  const match = /^\s*([-+−]?)\s*(\d[\d.,'’\u00a0\u202f ]*)\s*$/.exec(text);
  if (!match) return undefined;
  const reading = readNumberBody((match[2] ?? '').trim(), true);
  if (!reading) return undefined;
  return match[1] === '-' || match[1] === '−' ? -reading.value : reading.value;
}

/** A whole value that is one integer; "12,00" counts, "12,5" does not. */
export function parseInteger(text: string): number | undefined {
  const value = parseNumber(text);
  return value !== undefined && Number.isInteger(value) && Number.isSafeInteger(value) ? value : undefined;
}
