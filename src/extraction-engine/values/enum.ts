// Enum fields: the printed text must name one of the configured values, ignoring case and accents.

import { normalizeForMatching } from './text-normalization.ts';

/** The configured value the text names: exactly, or as a whole word inside it. */
export function parseEnum(text: string, allowedValues: readonly string[]): string | undefined {
  const normalizedText = normalizeForMatching(text);
  const exact = allowedValues.find((value) => normalizeForMatching(value) === normalizedText);
  if (exact !== undefined) return exact;
  const contained = allowedValues.filter((value) => {
    const normalizedValue = normalizeForMatching(value);
    if (normalizedValue.length === 0) return false;
    const escaped = normalizedValue.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(`(?:^|[^a-z0-9])${escaped}(?:$|[^a-z0-9])`).test(normalizedText);
  });
  return contained.length === 1 ? contained[0] : undefined;
}
