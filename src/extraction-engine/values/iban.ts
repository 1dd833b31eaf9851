// IBANs (ISO 13616): printed in groups of four ("DE08 7009 0100 1234 5678 90"), stored without spaces,
// accepted only when the country length and the mod-97 check digits agree, also right after an IBAN
// label or in an e-invoice's IBAN tag: a number that fails them (a sample's "US1234567890", a typo) is
// not an IBAN, whatever its label says, and reporting it as one would hand a payer a wrong account.

import { matchesOf } from './pattern-matches.ts';

const IBAN_LENGTHS: Record<string, number> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BR: 29, BY: 28, CH: 21,
  CR: 22, CY: 28, CZ: 24, DE: 22, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18, FO: 18, FR: 27,
  GB: 22, GE: 22, GI: 23, GL: 18, GR: 27, GT: 28, HR: 21, HU: 28, IE: 22, IL: 23, IQ: 23, IS: 26,
  IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28, LC: 32, LI: 21, LT: 20, LU: 20, LV: 21, MC: 27, MD: 24,
  ME: 22, MK: 19, MR: 27, MT: 31, MU: 30, NL: 18, NO: 15, PK: 24, PL: 28, PS: 29, PT: 25, QA: 29,
  RO: 24, RS: 22, SA: 24, SC: 31, SE: 24, SI: 19, SK: 24, SM: 27, ST: 25, SV: 28, TL: 23, TN: 24,
  TR: 26, UA: 29, VA: 22, VG: 24, XK: 20,
};

export function normalizeIban(text: string): string {
  return text.replace(/^IBAN[:\s]*/i, '').replace(/[\s\-.\u00a0]/g, '').toUpperCase();
}

/** ISO 7064 mod 97-10 over the rearranged IBAN; true when the remainder is 1. */
export function hasValidIbanChecksum(iban: string): boolean {
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const character of rearranged) {
    const code = character.charCodeAt(0);
    const digits = code >= 65 && code <= 90 ? String(code - 55) : character;
    if (!/^\d+$/.test(digits)) return false;
    for (const digit of digits) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}

export function isValidIban(iban: string): boolean {
  const expectedLength = IBAN_LENGTHS[iban.slice(0, 2)];
  return (
    /^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(iban) &&
    expectedLength !== undefined &&
    iban.length === expectedLength &&
    hasValidIbanChecksum(iban)
  );
}

/** A whole value that is one IBAN, normalized, or undefined when it fails length or checksum. */
export function parseIban(text: string): string | undefined {
  const iban = normalizeIban(text.trim());
  return isValidIban(iban) ? iban : undefined;
}

export interface FoundIban {
  iban: string;
  index: number;
  length: number;
}

/**
 * Valid IBANs in running text. Groups may be separated by single spaces, so the scan grows a
 * candidate group by group and keeps the length the country requires.
 */
export function findIbans(text: string): FoundIban[] {
  const found: FoundIban[] = [];
  const start = /(?<![A-Za-z0-9])([A-Z]{2})\s?(\d{2})/g;
  for (const match of matchesOf(start, text)) {
    const country = match[1] ?? '';
    const expectedLength = IBAN_LENGTHS[country];
    if (expectedLength === undefined) continue;
    let compact = country + (match[2] ?? '');
    let end = match.index + match[0].length;
    while (compact.length < expectedLength && end < text.length) {
      const next = /^[ \u00a0]?([A-Z0-9])/.exec(text.slice(end));
      if (!next) break;
      compact += next[1];
      end += next[0].length;
    }
    if (compact.length !== expectedLength) continue;
    if (/^[A-Za-z0-9]/.test(text.slice(end))) continue;
    if (isValidIban(compact)) found.push({ iban: compact, index: match.index, length: end - match.index });
  }
  return found;
}
