// A field's box is coloured by how sure the extractor was; the legend uses the same bands. Colours are
// chosen for ≥ 3:1 against white (non-text contrast) and are named in text too, never colour alone.

export type ConfidenceBand = 'high' | 'medium' | 'low' | 'unknown';

export function confidenceBandOf(confidence: number | undefined): ConfidenceBand {
  if (confidence === undefined) return 'unknown';
  if (confidence >= 0.9) return 'high';
  if (confidence >= 0.6) return 'medium';
  return 'low';
}

export function confidenceText(confidence: number | undefined): string {
  return confidence === undefined ? '—' : `${Math.round(confidence * 100)}% (${confidenceBandOf(confidence)})`;
}
