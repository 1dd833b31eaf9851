import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api-client.ts';

export interface LoadedResource<T> {
  value: T | undefined;
  error: ApiError | undefined;
  reload(): void;
}

/**
 * Loads `load()` now and whenever `keys` change; while `keepRefreshing(value)` holds, loads it again
 * every `refreshMs` (an extraction until it is terminal). A stale answer never overwrites a newer one.
 */
export function useResource<T>(load: () => Promise<T>, keys: unknown[], options: { refreshMs?: number; keepRefreshing?: (value: T) => boolean } = {}): LoadedResource<T> {
  const [value, setValue] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [generation, setGeneration] = useState(0);
  const latest = useRef(0);
  const reload = useCallback(() => setGeneration((current) => current + 1), []);

  useEffect(() => {
    const request = ++latest.current;
    let timer: ReturnType<typeof setTimeout> | undefined;
    load().then(
      (loaded) => {
        if (request !== latest.current) return;
        setValue(loaded);
        setError(undefined);
        if (options.refreshMs && options.keepRefreshing?.(loaded)) timer = setTimeout(reload, options.refreshMs);
      },
      (failure: unknown) => {
        if (request !== latest.current) return;
        setError(failure instanceof ApiError ? failure : new ApiError(0, 'ERROR', String(failure), undefined));
      },
    );
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...keys, generation]);

  return { value, error, reload };
}

/** An API error as the user should see it: the message, and the request id to quote when asking for help. */
export function ErrorNotice({ error }: { error: ApiError | undefined }) {
  if (!error) return null;
  return (
    <p class="notice notice-error" role="alert">
      {error.message}
      {error.requestId ? <span class="request-id"> (request {error.requestId})</span> : null}
    </p>
  );
}

/** The error an extraction or a run ended with, as the API records it (not a failed request). */
export function RecordedErrorNotice({ error }: { error: { code: string; message: string } | undefined }) {
  if (!error) return null;
  return (
    <p class="notice notice-error">
      {error.code}: {error.message}
    </p>
  );
}

export function formatDuration(milliseconds: number | undefined): string {
  if (milliseconds === undefined) return '—';
  if (milliseconds < 1000) return `${milliseconds} ms`;
  return `${(milliseconds / 1000).toFixed(milliseconds < 10_000 ? 2 : 1)} s`;
}

export function formatTime(iso: string | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '—';
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={`status status-${status.toLowerCase()}`}>{status}</span>;
}
