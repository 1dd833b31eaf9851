import { useEffect, useRef, useState } from 'preact/hooks';
import { answerOf, type ApiError, type ConsoleApi } from '../api-client.ts';
import { terminalExtractionStatuses, type Extraction, type Feedback } from '../api-types.ts';
import { confidenceText } from '../confidence.ts';
import { fieldValueText } from '../field-value-text.ts';
import { ErrorNotice, RecordedErrorNotice, StatusBadge, formatTime, useResource } from '../resource-loading.tsx';
import { hrefOf } from '../routing.ts';
import { DocumentPages } from './document-pages.tsx';
import { pageBoxesOf, selectionKeyOf, type FieldSelection } from './field-selection.ts';
import { TableField } from './table-field.tsx';

export function ExtractionDetail({ api, id }: { api: ConsoleApi; id: string }) {
  const extraction = useResource(() => answerOf(api.GET('/document-insights/extractions/{extractionId}', { params: { path: { extractionId: id } } })), [id], {
    refreshMs: 1000,
    keepRefreshing: (loaded) => !terminalExtractionStatuses.has(loaded.status),
  });
  const [selection, setSelection] = useState<FieldSelection | undefined>(undefined);
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
              {contentUrl ? (
                <DocumentPages
                  contentUrl={contentUrl}
                  mimeType={loaded.document?.mimeType}
                  boxes={pageBoxesOf(fields, selection)}
                  selectedKey={selectedKey}
                  onSelect={(selected) => select(selected, 'page')}
                />
              ) : (
                <p>No document to show.</p>
              )}
            </div>
            <div class="review-fields">
              <FieldsTable extraction={loaded} selectedKey={selectedKey} onSelect={(fieldId) => select({ fieldId }, 'table')} />
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

function FieldsTable({ extraction, selectedKey, onSelect }: { extraction: Extraction; selectedKey: string | undefined; onSelect(fieldId: string): void }) {
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
          </tr>
        </thead>
        <tbody>
          {extraction.output.fields.map((field) => (
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
              <td>{confidenceText(field.metadata?.confidence)}</td>
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
