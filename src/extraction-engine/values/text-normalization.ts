// Matching labels and month names must ignore case, accents and spacing ("Rechnungsdatum" vs
// "RECHNUNGSDATUM", "Numéro" vs "Numero", "Należność" vs "Naleznosc"), yet callers need to cut the
// original text at the matched position, so normalization keeps a map back to original offsets.

const SPECIAL_LETTERS: Record<string, string> = {
  ß: 'ss',
  ł: 'l',
  ø: 'o',
  æ: 'ae',
  œ: 'oe',
  đ: 'd',
  ı: 'i',
  '\u2019': "'",
  '\u2018': "'",
  '\u2013': '-',
  '\u2014': '-',
  '\u2212': '-',
  º: '°',
};

export interface NormalizedText {
  text: string;
  /** originalOffsets[i] is the offset in the original string of normalized character i. */
  originalOffsets: number[];
}

function normalizeCharacter(character: string): string {
  const lower = character.toLowerCase();
  const special = SPECIAL_LETTERS[lower];
  if (special !== undefined) return special;
  if (/\s/.test(lower)) return ' ';
  return lower.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
}

/** Lowercase, accents removed, any whitespace run collapsed to one space; offsets map back. */
export function normalizeWithOffsets(original: string): NormalizedText {
  let text = '';
  const originalOffsets: number[] = [];
  let offset = 0;
  for (const character of original) {
    const normalized = normalizeCharacter(character);
    for (const normalizedCharacter of normalized) {
      if (normalizedCharacter === ' ' && (text.length === 0 || text.endsWith(' '))) continue;
      text += normalizedCharacter;
      originalOffsets.push(offset);
    }
    offset += character.length;
  }
  if (text.endsWith(' ')) {
    text = text.slice(0, -1);
    originalOffsets.pop();
  }
  return { text, originalOffsets };
}

export function normalizeForMatching(original: string): string {
  return normalizeWithOffsets(original).text;
}
