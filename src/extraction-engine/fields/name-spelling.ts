// A business name OCR misread by one letter ("LEE WAK FLORIST" for "LEE WAH FLORIST") is often spelt
// again on the same page, in small print that reads differently: its web address, e-mail or social
// handle ("sales@leewahflorist.com", "Facebook: Sanyu.Stationery").

import type { DocumentLayout } from './document-layout.ts';

/** Shortest run of letters a name must share with an address before one letter is changed: short runs match by chance. */
const MIN_COMPARED_LETTERS = 8;

const lettersOf = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Web addresses, e-mail addresses and handles: tokens that join words with a dot or an at sign. */
function spellingsOnPage(layout: DocumentLayout, nameSegmentId: number): string[] {
  const spellings: string[] = [];
  for (const segment of layout.segments) {
    if (segment.id === nameSegmentId) continue;
    for (const token of segment.text.split(/\s+/)) {
      if (!/[a-z0-9][.@][a-z]/i.test(token)) continue;
      const letters = lettersOf(token);
      if (letters.length >= MIN_COMPARED_LETTERS) spellings.push(letters);
    }
  }
  return spellings;
}

/**
 * The name with one letter replaced where the page spells its first words (at least eight letters)
 * with exactly that letter different, and nowhere as read; otherwise undefined.
 */
export function nameSpeltAsOnPage(name: string, layout: DocumentLayout, nameSegmentId: number): string | undefined {
  const spellings = spellingsOnPage(layout, nameSegmentId);
  if (spellings.length === 0) return undefined;
  const words = name.split(/\s+/).filter(Boolean);
  for (let count = words.length; count >= 1; count -= 1) {
    const letters = lettersOf(words.slice(0, count).join(' '));
    if (letters.length < MIN_COMPARED_LETTERS) break;
    const repairs = new Map<number, string>();
    for (const spelling of spellings) {
      if (spelling.includes(letters)) return undefined;
      for (let offset = 0; offset + letters.length <= spelling.length; offset += 1) {
        let mismatch = -1;
        for (let position = 0; position < letters.length; position += 1) {
          if (spelling[offset + position] === letters[position]) continue;
          mismatch = mismatch === -1 ? position : -2;
          if (mismatch === -2) break;
        }
        if (mismatch >= 0) repairs.set(mismatch, spelling[offset + mismatch] ?? '');
      }
    }
    if (repairs.size !== 1) continue;
    const [[position, letter]] = [...repairs.entries()] as [[number, string]];
    // Addresses spell an ampersand as a letter ("S&Y" as "sny"): beside one, a letter differs by that, not by a misreading.
    if (besideAmpersand(name, position)) continue;
    return replaceNthAlphanumeric(name, position, letter);
  }
  return undefined;
}

/** The index in `text` of its n-th letter or digit, or -1. */
function indexOfNthAlphanumeric(text: string, n: number): number {
  let seen = -1;
  for (let index = 0; index < text.length; index += 1) {
    if (!/[a-z0-9]/i.test(text[index] ?? '')) continue;
    seen += 1;
    if (seen === n) return index;
  }
  return -1;
}

/** Whether the n-th letter or digit of `text` stands next to an "&" or "+". */
function besideAmpersand(text: string, n: number): boolean {
  const index = indexOfNthAlphanumeric(text, n);
  return index >= 0 && /[&+]/u.test(`${text[index - 1] ?? ''}${text[index + 1] ?? ''}`);
}

/** The text with its n-th letter or digit replaced, keeping the case of the one replaced. */
function replaceNthAlphanumeric(text: string, n: number, replacement: string): string {
  const index = indexOfNthAlphanumeric(text, n);
  if (index < 0) return text;
  const original = text[index] ?? '';
  const cased = original === original.toUpperCase() ? replacement.toUpperCase() : replacement;
  return text.slice(0, index) + cased + text.slice(index + 1);
}
