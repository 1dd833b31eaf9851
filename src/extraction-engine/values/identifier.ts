// Reference numbers (invoice, order, customer numbers) printed after a label: "# BLR_WFLD2015...",
// "Nr. 42", "n°562044387", "F 1234K20/1234/12", "INV/2023/03/0008", "00.123.456.7-2018-1".

import { findDates } from './date.ts';

export interface FoundIdentifier {
  identifier: string;
  index: number;
  length: number;
  /** 1 for a typical reference (letters and digits, or long digits); lower for a bare short number. */
  quality: number;
}

// Words that sit between a label and its value ("Invoice No.: 42", "Facture n° 12", "Nr. 42 vom").
const LEADING_FILLER = /^(?:[\s:#.\-–=]|n°|nº|no\.?(?=\s|\d|:)|nr\.?(?=\s|\d|:)|number\b|nummer\b|num\.?(?=\s)|numero\b|numéro\b)*/i;
const TOKEN = /^[A-Za-z0-9][A-Za-z0-9\-/_.]*[A-Za-z0-9]|^[A-Za-z0-9]/;

export interface IdentifierOptions {
  /** Join digit groups split by single spaces ("471 1 02" -> "471102"), as OCR splits digit runs. */
  joinSplitDigits?: boolean;
}

/** The first reference-number-like token at the start of the text (after label filler). */
export function findIdentifierAtStart(text: string, options: IdentifierOptions = {}): FoundIdentifier | undefined {
  const filler = LEADING_FILLER.exec(text)?.[0] ?? '';
  const index = filler.length;
  const rest = text.slice(index);
  const first = TOKEN.exec(rest)?.[0];
  if (!first) return undefined;
  let identifier = first;
  let length = first.length;
  if (options.joinSplitDigits && /^\d+$/.test(first)) {
    const continuation = /^(?: \d{1,3}(?![\d.,/-]))+/.exec(rest.slice(first.length));
    if (continuation) {
      identifier = `${first}${continuation[0].replace(/ /g, '')}`;
      length = first.length + continuation[0].length;
    }
  }
  // A short series prefix before the number ("F 1234K20/1234/12", "FV 2021/001") belongs to it.
  if (/^[A-Z]{1,3}$/.test(first)) {
    const following = /^\s([A-Za-z0-9][A-Za-z0-9\-/_.]*[A-Za-z0-9])/.exec(rest.slice(first.length));
    if (following?.[1] && /\d/.test(following[1])) {
      identifier = `${first} ${following[1]}`;
      length = identifier.length;
    }
  }
  const trimmed = identifier.replace(/[.\-/]+$/, '');
  length -= identifier.length - trimmed.length;
  identifier = trimmed;
  if (!/\d/.test(identifier) && !/_/.test(identifier)) return undefined;
  if (identifier.length > 40) return undefined;
  // A date right after a label is a date field, not a reference.
  const asDate = findDates(identifier)[0];
  if (asDate && asDate.length >= identifier.length - 1) return undefined;
  const digits = identifier.replace(/\D/g, '').length;
  const hasLetters = /[A-Za-z]/.test(identifier);
  const quality = hasLetters || digits >= 4 ? 1 : digits >= 2 ? 0.8 : 0.55;
  return { identifier, index, length, quality };
}
