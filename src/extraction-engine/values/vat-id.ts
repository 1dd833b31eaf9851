// VAT identification numbers: EU style with a country prefix ("DE 232 446 240", "NL810433941B01",
// "FR60421938861", "ATU12345678"), Swiss UID ("CHE-123.456.789 MWST"), UK, and bare national tax
// numbers when a label says the value is one (Polish NIP "774-00-01-454").

import { matchesOf } from './pattern-matches.ts';

const VAT_FORMATS: Record<string, RegExp> = {
  AT: /^ATU\d{8}$/,
  BE: /^BE[01]\d{9}$/,
  BG: /^BG\d{9,10}$/,
  CH: /^CHE\d{9}(?:MWST|TVA|IVA)?$/,
  CY: /^CY\d{8}[A-Z]$/,
  CZ: /^CZ\d{8,10}$/,
  DE: /^DE\d{9}$/,
  DK: /^DK\d{8}$/,
  EE: /^EE\d{9}$/,
  EL: /^EL\d{9}$/,
  ES: /^ES[A-Z0-9]\d{7}[A-Z0-9]$/,
  FI: /^FI\d{8}$/,
  FR: /^FR[A-HJ-NP-Z0-9]{2}\d{9}$/,
  GB: /^GB(?:\d{9}|\d{12}|GD\d{3}|HA\d{3})$/,
  HR: /^HR\d{11}$/,
  HU: /^HU\d{8}$/,
  IE: /^IE\d{7}[A-W][A-I]?$|^IE\d[A-Z+*]\d{5}[A-W]$/,
  IT: /^IT\d{11}$/,
  LT: /^LT(?:\d{9}|\d{12})$/,
  LU: /^LU\d{8}$/,
  LV: /^LV\d{11}$/,
  MT: /^MT\d{8}$/,
  NL: /^NL\d{9}B\d{2}$/,
  NO: /^NO\d{9}(?:MVA)?$/,
  PL: /^PL\d{10}$/,
  PT: /^PT\d{9}$/,
  // The CUI is a number of 2-10 digits, written without leading zeros.
  RO: /^RO[1-9]\d{1,9}$/,
  SE: /^SE\d{12}$/,
  SI: /^SI\d{8}$/,
  SK: /^SK\d{10}$/,
  XI: /^XI(?:\d{9}|\d{12})$/,
};

export function normalizeVatId(text: string): string {
  return text.replace(/[\s.\-/\u00a0]/g, '').toUpperCase();
}

export interface VatIdOptions {
  /** Accept a bare national number (8-12 digits, Spanish NIF/CIF letters allowed) when a VAT/tax label anchors the value. */
  allowBareNumber?: boolean;
}

/** A whole value that is one VAT id, normalized, or undefined. */
export function parseVatId(text: string, options: VatIdOptions = {}): string | undefined {
  const compact = normalizeVatId(text.trim());
  const country = compact.slice(0, 2);
  const format = VAT_FORMATS[country === 'CH' ? 'CH' : country];
  if (format?.test(compact)) return compact;
  if (options.allowBareNumber && (/^\d{8,12}$/.test(compact) || /^[A-Z]\d{7}[A-Z0-9]$|^\d{8}[A-Z]$/.test(compact))) return compact;
  return undefined;
}

export interface FoundVatId {
  vatId: string;
  index: number;
  length: number;
}

const VAT_CANDIDATE = /(?<![A-Za-z0-9])(?:[A-Z]{2}|CHE)[\s\-.]?[A-Z0-9][A-Z0-9 .\-]{6,16}[A-Z0-9]/g;

/** Prefixed VAT ids in running text ("UStId DE 232 446 240"). */
export function findVatIds(text: string): FoundVatId[] {
  const found: FoundVatId[] = [];
  for (const match of matchesOf(VAT_CANDIDATE, text)) {
    // Try the longest prefix first, shrinking at separators, since the pattern can run into the next word.
    let candidate = match[0];
    while (candidate.length >= 8) {
      const vatId = parseVatId(candidate);
      if (vatId) {
        found.push({ vatId, index: match.index, length: candidate.length });
        break;
      }
      const cut = candidate.search(/[\s.\-][^\s.\-]*$/);
      if (cut <= 0) break;
      candidate = candidate.slice(0, cut);
    }
  }
  return found;
}
