import { useEffect, useRef, useState } from 'preact/hooks';
import { answerOf, type ApiError, type ConsoleApi } from '../api-client.ts';
import { terminalExtractionStatuses, type ExtractedField, type Extraction, type Feedback } from '../api-types.ts';
import { confidenceBandOf, confidenceText } from '../confidence.ts';
import { fieldValueText } from '../field-value-text.ts';
import { ErrorNotice, RecordedErrorNotice, StatusBadge, formatTime, useResource } from '../resource-loading.tsx';
import { hrefOf } from '../routing.ts';
import { DocumentPages } from './document-pages.tsx';
import { pageBoxesOf, selectionKeyOf, type FieldSelection } from './field-selection.ts';
import { TableField } from './table-field.tsx';
import { ConfidenceLegend, ConfidenceThreshold, FieldCorrection, ZoomControls, isShownAtThreshold } from './field-review.tsx';

export function ExtractionDetail({ api, id }: { api: ConsoleApi; id: string }) {
  const extraction = useResource(() => answerOf(api.GET('/document-insights/extractions/{extractionId}', { params: { path: { extractionId: id } } })), [id], {
    refreshMs: 1000,
    keepRefreshing: (loaded) => !terminalExtractionStatuses.has(loaded.status),
  });
  const [selection, setSelection] = useState<FieldSelection | undefined>(undefined);
  const [threshold, setThreshold] = useState(100);
  const [zoom, setZoom] = useState(1);
  const [correctionError, setCorrectionError] = useState<ApiError | undefined>(undefined);
  const [corrected, setCorrected] = useState<Feedback | undefined>(undefined);
  const selectedKey = selection && selectionKeyOf(selection);
  // The pre-signed URL changes on every GET; the pages are drawn once per extraction, from the first.
  const [contentUrl, setContentUrl] = useState<string | undefined>(undefined);
  const loaded = extraction.value;
  useEffect(() => {
    if (loaded?.document?.contentUrl && !contentUrl) setContentUrl(loaded.document.contentUrl);
  }, [loaded, contentUrl]);

  const select = (selected: FieldSelection, from: 'table' | 'page') => {
    setSelection(selected);
    const key = CSS.escape(selectionKeyOf(selected));
    // A table's row or cell has its box only once selected: look for it after this render.
    requestAnimationFrame(() => {
      const other = from === 'table' ? `.field-box[data-selection="${key}"]` : `.review-fields [data-selection="${key}"]`;
      document.querySelector(other)?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    });
  };
  const fields = loaded?.output?.fields ?? [];
  // Feedback with correctedValue (an API extension): the output then shows it beside the extracted value.
  const saveCorrection = async (field: ExtractedField, correctedValue: unknown) => {
    setCorrectionError(undefined);
    setCorrected(undefined);
    try {
      const feedback = await answerOf(
        api.POST('/document-insights/extractions/{extractionId}/feedback', {
          params: { path: { extractionId: id } },
          body: { message: `Corrected ${field.name} in the review console.`, fieldId: field.id, correctedValue },
        }),
      );
      setCorrected(feedback);
      extraction.reload();
    } catch (error) {
      setCorrectionError(error as ApiError);
      throw error;
    }
  };
  const tableFields = fields.filter((field) => field.type === 'table' && Array.isArray(field.value) && field.value.length > 0);

  return (
    <section aria-labelledby="extraction-heading">
      <p>
        <a href={hrefOf({ view: 'extractions' })}>← Extractions</a>
      </p>
      <h1 id="extraction-heading">{loaded?.document?.fileName ?? id}</h1>
      <ErrorNotice error={extraction.error} />
      {loaded ? (
        <>
          <p class="summary">
            <StatusBadge status={loaded.status} /> {loaded.reviewRequired ? <span class="review-required">Needs review</span> : null}{' '}
            <span>created {formatTime(loaded.createdAt)}</span> <code>{loaded.id}</code>
          </p>
          <RecordedErrorNotice error={loaded.error} />
          <div class={tableFields.length > 0 ? 'review review-with-tables' : 'review'}>
            <div class="review-document">
              <ConfidenceLegend />
              {contentUrl ? (
                <>
                  <ZoomControls zoom={zoom} onZoom={setZoom} />
                  {/* Zoomed pages keep their boxes (placed in fractions of the page) and scroll sideways. */}
                  <div class="pages-viewport">
                    <div class="pages-zoom" style={{ width: `${zoom * 100}%` }} data-zoom={zoom}>
                      <DocumentPages
                        contentUrl={contentUrl}
                        mimeType={loaded.document?.mimeType}
                        boxes={pageBoxesOf(fields, selection)}
                        selectedKey={selectedKey}
                        onSelect={(selected) => select(selected, 'page')}
                      />
                    </div>
                  </div>
                </>
              ) : (
                <p>No document to show.</p>
              )}
            </div>
            <div class="review-fields">
              {loaded.output ? (
                <ConfidenceThreshold value={threshold} onChange={setThreshold} shown={fields.filter((field) => isShownAtThreshold(field, threshold)).length} total={fields.length} />
              ) : null}
              <FieldsTable
                extraction={loaded}
                threshold={threshold}
                selectedKey={selectedKey}
                onSelect={(fieldId) => select({ fieldId }, 'table')}
                onCorrect={saveCorrection}
              />
              <div class="correction-outcome">
                <ErrorNotice error={correctionError} />
                {corrected ? (
                  <p class="notice" role="status">
                    Saved: {fields.find((field) => field.id === corrected.fieldId)?.name ?? corrected.fieldId} is now {JSON.stringify(corrected.correctedValue)}.
                  </p>
                ) : null}
              </div>
              {tableFields.map((field) => (
                <TableField key={field.id} field={field} selectedKey={selectedKey} onSelect={(selected) => select(selected, 'table')} />
              ))}
              <FeedbackForm api={api} extraction={loaded} fieldId={selection?.fieldId} onSent={extraction.reload} />
            </div>
          </div>
        </>
      ) : null}
    </section>
  );
}

interface FieldsTableProps {
  extraction: Extraction;
  /** Percent: only fields below it are listed (100: all). */
  threshold: number;
  selectedKey: string | undefined;
  onSelect(fieldId: string): void;
  onCorrect(field: ExtractedField, correctedValue: unknown): Promise<void>;
}

function FieldsTable({ extraction, threshold, selectedKey, onSelect, onCorrect }: FieldsTableProps) {
  if (!extraction.output) return <p aria-live="polite">{terminalExtractionStatuses.has(extraction.status) ? 'No fields.' : 'Extracting…'}</p>;
  return (
    <div class="table-scroll">
      <table class="fields">
        <caption>
          {extraction.output.fieldCount} fields: select one (click, or Tab to it and press Enter) to see it on the page
        </caption>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Value</th>
            <th scope="col">Confidence</th>
            <th scope="col">Right value</th>
          </tr>
        </thead>
        <tbody>
          {extraction.output.fields.filter((field) => isShownAtThreshold(field, threshold)).map((field) => (
            <tr
              key={field.id}
              data-field-id={field.id}
              data-selection={field.id}
              tabIndex={0}
              class={field.id === selectedKey ? 'selected' : ''}
              aria-selected={field.id === selectedKey}
              onClick={() => onSelect(field.id)}
              onKeyDown={(event) => {
                if (event.key === 'Enter' || event.key === ' ') {
                  event.preventDefault();
                  onSelect(field.id);
                }
              }}
            >
              <th scope="row">{field.name}</th>
              <td>{fieldValueText(field)}</td>
              <td>
                <span class={`confidence-swatch confidence-${confidenceBandOf(field.metadata?.confidence)}`} aria-hidden="true" /> {confidenceText(field.metadata?.confidence)}
              </td>
              <td>
                <FieldCorrection field={field} onSave={(correctedValue) => onCorrect(field, correctedValue)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** ERROR (marks the extraction for review) or INFO feedback, on the selected field or the whole document. */
function FeedbackForm({ api, extraction, fieldId, onSent }: { api: ConsoleApi; extraction: Extraction; fieldId: string | undefined; onSent(): void }) {
  const [type, setType] = useState<'ERROR' | 'INFO'>('ERROR');
  const [scope, setScope] = useState<'field' | 'document'>('field');
  const [message, setMessage] = useState('');
  const [sent, setSent] = useState<Feedback | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const field = extraction.output?.fields.find((candidate) => candidate.id === fieldId);
  const onField = scope === 'field' && field !== undefined;
  const outcome = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (sent || error) outcome.current?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [sent, error]);

  return (
    <form
      class="feedback"
      aria-labelledby="feedback-heading"
      onSubmit={(event) => {
        event.preventDefault();
        setError(undefined);
        answerOf(
          api.POST('/document-insights/extractions/{extractionId}/feedback', {
            params: { path: { extractionId: extraction.id } },
            body: { message, type, ...(onField ? { fieldId: field.id } : {}) },
          }),
        ).then(
            (feedback) => {
              setSent(feedback);
              setMessage('');
              onSent();
            },
            setError,
          );
      }}
    >
      <h2 id="feedback-heading">Feedback</h2>
      <fieldset>
        <legend>Kind</legend>
        <label>
          <input type="radio" name="feedback-type" value="ERROR" checked={type === 'ERROR'} onChange={() => setType('ERROR')} /> Error (needs review)
        </label>
        <label>
          <input type="radio" name="feedback-type" value="INFO" checked={type === 'INFO'} onChange={() => setType('INFO')} /> Note
        </label>
      </fieldset>
      <fieldset>
        <legend>About</legend>
        <label>
          <input type="radio" name="feedback-scope" value="field" checked={scope === 'field'} onChange={() => setScope('field')} /> The selected field
          {field ? ` (${field.name})` : ' (none selected)'}
        </label>
        <label>
          <input type="radio" name="feedback-scope" value="document" checked={scope === 'document'} onChange={() => setScope('document')} /> The whole
          document
        </label>
      </fieldset>
      <label>
        Message
        <textarea name="message" required maxLength={1024} value={message} onInput={(event) => setMessage(event.currentTarget.value)} />
      </label>
      {/* The outcome sits beside the button and is scrolled into view: below a long fields table it
          would otherwise appear under the fold, and the click would seem to do nothing. */}
      <div class="feedback-actions" ref={outcome}>
        <button type="submit" disabled={scope === 'field' && !field}>
          Send feedback
        </button>
        <ErrorNotice error={error} />
        {sent ? (
          <p class="notice" role="status">
            {sent.type} feedback recorded{sent.fieldId ? ` on ${field?.name ?? sent.fieldId}` : ' on the document'}.
          </p>
        ) : null}
      </div>
    </form>
  );
}
