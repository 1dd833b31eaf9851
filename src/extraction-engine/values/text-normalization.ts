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
  const code = character.charCodeAt(0);
  // ASCII, nearly all of the text: the general path below gives the same result, only slower.
  if (code < 0x80) {
    if (code >= 0x41 && code <= 0x5a) return String.fromCharCode(code + 0x20);
    return code === 0x20 || (code >= 0x09 && code <= 0x0d) ? ' ' : character;
  }
  let normalized = normalizedNonAscii.get(character);
  if (normalized === undefined) {
    normalized = normalizeNonAscii(character);
    if (normalizedNonAscii.size < MAX_REMEMBERED_CHARACTERS) normalizedNonAscii.set(character, normalized);
  }
  return normalized;
}

// Documents use few distinct non-ASCII characters; Unicode normalization per occurrence is the costly part.
// The cap keeps a document full of rare characters from growing it without bound.
const normalizedNonAscii = new Map<string, string>();
const MAX_REMEMBERED_CHARACTERS = 4096;

function normalizeNonAscii(character: string): string {
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
