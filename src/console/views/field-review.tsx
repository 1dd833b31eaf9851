import { useState } from 'preact/hooks';
import type { ExtractedField } from '../api-types.ts';
import type { ConfidenceBand } from '../confidence.ts';
import { valueText } from '../field-value-text.ts';

// What a reviewer needs beside the extracted fields: which colour means which confidence, a filter that
// leaves the fields the extractor was least sure of, a zoom for small print, and a box per field to type
// the right value into (sent as feedback with correctedValue, an extension of the API).

const bands: { band: ConfidenceBand; text: string }[] = [
  { band: 'high', text: 'high, 90% and above' },
  { band: 'medium', text: 'medium, 60% to 89%' },
  { band: 'low', text: 'low, below 60%' },
  { band: 'unknown', text: 'not given' },
];

/** The colours of the boxes and swatches, named: colour is never the only carrier of the band. */
export function ConfidenceLegend() {
  return (
    <div class="confidence-legend" role="group" aria-labelledby="confidence-legend-heading">
      <span id="confidence-legend-heading">Confidence:</span>
      <ul>
        {bands.map(({ band, text }) => (
          <li key={band} data-band={band}>
            <span class={`confidence-swatch confidence-${band}`} aria-hidden="true" /> {text}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Below this many percent a field is shown; 100 shows every field. */
export function isShownAtThreshold(field: Pick<ExtractedField, 'metadata'>, thresholdPercent: number): boolean {
  if (thresholdPercent >= 100) return true;
  const confidence = field.metadata?.confidence;
  // A field without a confidence cannot be said to be sure: it stays in view.
  return confidence === undefined || Math.round(confidence * 100) < thresholdPercent;
}

export function ConfidenceThreshold({ value, onChange, shown, total }: { value: number; onChange(percent: number): void; shown: number; total: number }) {
  return (
    <p class="threshold">
      <label>
        Show fields with confidence below (%)
        <input
          type="number"
          name="confidence-threshold"
          min={0}
          max={100}
          step={5}
          value={value}
          onInput={(event) => {
            const percent = Number(event.currentTarget.value);
            if (Number.isFinite(percent)) onChange(Math.min(100, Math.max(0, percent)));
          }}
        />
      </label>{' '}
      <span role="status">{shown === total ? `All ${total} fields shown.` : `${shown} of ${total} fields shown.`}</span>
    </p>
  );
}

export const zoomSteps = [0.5, 0.75, 1, 1.25, 1.5, 2, 3];

export function ZoomControls({ zoom, onZoom }: { zoom: number; onZoom(zoom: number): void }) {
  const index = zoomSteps.indexOf(zoom);
  return (
    <div class="zoom" role="group" aria-label="Zoom the document">
      <button type="button" onClick={() => onZoom(zoomSteps[index - 1]!)} disabled={index <= 0}>
        Zoom out
      </button>
      <output aria-live="polite">{Math.round(zoom * 100)}%</output>
      <button type="button" onClick={() => onZoom(zoomSteps[index + 1]!)} disabled={index >= zoomSteps.length - 1}>
        Zoom in
      </button>
      <button type="button" onClick={() => onZoom(1)} disabled={zoom === 1}>
        Fit
      </button>
    </div>
  );
}

/**
 * The typed text as the JSON value the field's type takes: a number for numeric types, true or false
 * for boolean, text for the rest. Text that is no number is sent as typed: the API names the problem.
 */
export function correctedValueOf(type: string, text: string): unknown {
  const trimmed = text.trim();
  if (['amount', 'number', 'integer'].includes(type)) {
    const number = Number(trimmed.replace(/\s/g, ''));
    return trimmed !== '' && Number.isFinite(number) ? number : trimmed;
  }
  if (type === 'boolean' && (trimmed === 'true' || trimmed === 'false')) return trimmed === 'true';
  return trimmed;
}

/** The field's corrected value (when it has one) and a box to type the right one into. */
export function FieldCorrection({ field, onSave }: { field: ExtractedField; onSave(correctedValue: unknown): Promise<void> }) {
  const [text, setText] = useState('');
  const [saving, setSaving] = useState(false);
  if (field.type === 'table') return <span class="hint">correct rows below</span>;
  return (
    <div class="field-correction">
      {field.correction ? (
        <span class="corrected" data-corrected-value>
          {valueText(field.correctedValue)} <span class="hint">(corrected)</span>
        </span>
      ) : null}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          setSaving(true);
          // A refused value stays in the box to be fixed; the view shows why it was refused.
          onSave(correctedValueOf(field.type, text))
            .then(
              () => setText(''),
              () => undefined,
            )
            .finally(() => setSaving(false));
        }}
      >
        {/* Named by aria-label: a visually hidden label is absolutely placed, and inside the table's
            sideways scroll it would escape the scroll and widen the page on a phone. */}
        <input
          aria-label={`Right value of ${field.name}`}
          type="text"
          name="correctedValue"
          value={text}
          placeholder={field.type}
          onInput={(event) => setText(event.currentTarget.value)}
          // Enter and space belong to the box (Enter saves), not to the row's own keys (select).
          onKeyDown={(event) => event.stopPropagation()}
        />
        <button type="submit" disabled={saving || text.trim() === ''} onKeyDown={(event) => event.stopPropagation()} aria-label={`Save the right value of ${field.name}`}>
          Save
        </button>
      </form>
    </div>
  );
}
