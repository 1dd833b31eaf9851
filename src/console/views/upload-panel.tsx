import { useState } from 'preact/hooks';
import { answerOf, fetchReportingUpload, type ApiError, type ConsoleApi } from '../api-client.ts';
import type { Extraction } from '../api-types.ts';
import { ErrorNotice } from '../resource-loading.tsx';
import { hrefOf } from '../routing.ts';
import { labelPairsOf } from '../labels-text.ts';

interface Upload {
  fileName: string;
  fraction: number;
  extraction?: Extraction;
  error?: ApiError;
}

/** Drop a document (or choose it with the file input, from the keyboard) to upload and extract it. */
export function UploadPanel({ api, onUploaded }: { api: ConsoleApi; onUploaded: () => void }) {
  const [dragging, setDragging] = useState(false);
  const [labels, setLabels] = useState('');
  const [upload, setUpload] = useState<Upload | undefined>(undefined);

  const send = (file: File) => {
    setUpload({ fileName: file.name, fraction: 0 });
    const chosenLabels = Object.fromEntries(labelPairsOf(labels).filter(([, value]) => value !== ''));
    // Labels first, so the service stores the file while it arrives.
    const form = new FormData();
    if (Object.keys(chosenLabels).length > 0) form.append('labels', JSON.stringify(chosenLabels));
    form.append('file', file, file.name);
    answerOf(
      api.POST('/document-insights/extractions/upload', {
        // The form is sent as built above; the typed body (its parts as strings) is only a placeholder.
        body: {} as never,
        bodySerializer: () => form,
        fetch: fetchReportingUpload((fraction) => setUpload({ fileName: file.name, fraction })),
      }),
    ).then(
        (extraction) => {
          setUpload({ fileName: file.name, fraction: 1, extraction });
          onUploaded();
        },
        (error: ApiError) => setUpload({ fileName: file.name, fraction: 0, error }),
      );
  };

  return (
    <div
      class={`upload${dragging ? ' upload-dragging' : ''}`}
      onDragOver={(event) => {
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(event) => {
        event.preventDefault();
        setDragging(false);
        const file = event.dataTransfer?.files[0];
        if (file) send(file);
      }}
    >
      <p>Drop a document here to extract it, or</p>
      <label class="button">
        Choose a file…
        <input
          type="file"
          class="visually-hidden"
          name="document"
          onChange={(event) => {
            const file = event.currentTarget.files?.[0];
            if (file) send(file);
            event.currentTarget.value = '';
          }}
        />
      </label>
      <label class="upload-labels">
        Labels for the upload <span class="hint">(k=v, comma separated)</span>
        <input type="text" value={labels} onInput={(event) => setLabels(event.currentTarget.value)} />
      </label>
      {upload ? (
        <div class="upload-state" aria-live="polite">
          <label>
            Uploading {upload.fileName}
            <progress max={1} value={upload.fraction} />
          </label>
          {upload.extraction ? (
            <p>
              Accepted: <a href={hrefOf({ view: 'extraction', id: upload.extraction.id })}>{upload.extraction.id}</a>
            </p>
          ) : null}
          <ErrorNotice error={upload.error} />
        </div>
      ) : null}
    </div>
  );
}
