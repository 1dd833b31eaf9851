// Yes/no answers in the engine's languages, and checkbox marks.

import { normalizeForMatching } from './text-normalization.ts';

const TRUE_WORDS = new Set(['true', 'yes', 'y', 'ja', 'j', 'oui', 'o', 'tak', 't', 'si', 'sì', 'x', '[x]', '☑', '☒', '✓', '✔', '1', 'wahr', 'vrai', 'waar', 'prawda']);
const FALSE_WORDS = new Set(['false', 'no', 'n', 'nein', 'non', 'nee', 'nie', '[ ]', '☐', '0', 'falsch', 'faux', 'onwaar', 'falsz']);

export function parseBoolean(text: string): boolean | undefined {
  const word = normalizeForMatching(text).replace(/[.:]$/, '');
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return undefined;
}
