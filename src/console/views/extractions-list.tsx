import { useState } from 'preact/hooks';
import { answerOf, type ConsoleApi } from '../api-client.ts';
import { extractionStatuses, terminalExtractionStatuses, type ExtractionStatus, type ListedExtraction } from '../api-types.ts';
import { ErrorNotice, StatusBadge, formatTime, useResource } from '../resource-loading.tsx';
import { labelPairsOf } from '../labels-text.ts';
import { hrefOf } from '../routing.ts';
import { ChoiceFilter, choicesOf } from './list-filters.tsx';
import { UploadPanel } from './upload-panel.tsx';

type ReviewFilter = 'any' | 'required' | 'not-required';

/** Extractions needing review first, then as the API sorted them (newest first). */
export function reviewFirst(extractions: readonly ListedExtraction[]): ListedExtraction[] {
  return [...extractions].sort((left, right) => Number(Boolean(right.reviewRequired)) - Number(Boolean(left.reviewRequired)));
}

export function ExtractionsList({ api }: { api: ConsoleApi }) {
  const [status, setStatus] = useState<ExtractionStatus | ''>('');
  const [labels, setLabels] = useState('');
  const [review, setReview] = useState<ReviewFilter>('any');
  const query = { size: 100, ...(status ? { status } : {}), labels: Object.fromEntries(labelPairsOf(labels)) };
  const listing = useResource(() => answerOf(api.GET('/document-insights/extractions', { params: { query } })), [JSON.stringify(query)], {
    refreshMs: 1500,
    keepRefreshing: (page) => page.data.some((extraction) => !terminalExtractionStatuses.has(extraction.status)),
  });
  // The API has no reviewRequired filter: it applies to the page the list shows.
  const shown = reviewFirst(listing.value?.data ?? []).filter(
    (extraction) => review === 'any' || (review === 'required') === Boolean(extraction.reviewRequired),
  );

  return (
    <section aria-labelledby="extractions-heading">
      <h1 id="extractions-heading">Extractions</h1>
      <UploadPanel api={api} onUploaded={listing.reload} />
      <form class="filters" onSubmit={(event) => event.preventDefault()} aria-label="Filter extractions">
        <ChoiceFilter label="Status" name="status" value={status} choices={choicesOf(extractionStatuses)} onChange={setStatus} />
        <label>
          Labels <span class="hint">(k=v, comma separated)</span>
          <input type="text" value={labels} onChange={(event) => setLabels(event.currentTarget.value)} placeholder="customer=acme" />
        </label>
        <label>
          Review
          <select value={review} onChange={(event) => setReview(event.currentTarget.value as ReviewFilter)}>
            <option value="any">Any</option>
            <option value="required">Needs review</option>
            <option value="not-required">No review needed</option>
          </select>
        </label>
      </form>
      <ErrorNotice error={listing.error} />
      {listing.value === undefined && !listing.error ? <p aria-live="polite">Loading…</p> : null}
      {listing.value !== undefined ? (
        <div class="table-scroll">
          <table class="list" aria-describedby="extractions-count">
            <caption id="extractions-count">
              {shown.length} shown of {listing.value.pageInfo.totalItems}
            </caption>
            <thead>
              <tr>
                <th scope="col">Document</th>
                <th scope="col">Status</th>
                <th scope="col">Review</th>
                <th scope="col">Labels</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((extraction) => (
                <tr key={extraction.id} data-extraction-id={extraction.id}>
                  <td>
                    <a href={hrefOf({ view: 'extraction', id: extraction.id })}>{extraction.document?.fileName ?? extraction.id}</a>
                  </td>
                  <td>
                    <StatusBadge status={extraction.status} />
                  </td>
                  <td>{extraction.reviewRequired ? <span class="review-required">Needs review</span> : ''}</td>
                  <td class="labels">
                    {Object.entries(extraction.labels ?? {}).map(([key, value]) => (
                      <span class="label">
                        {key}={value}
                      </span>
                    ))}
                  </td>
                  <td>{formatTime(extraction.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
