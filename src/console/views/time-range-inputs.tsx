// The "from" and "to" of a list filter, as the API's `from` and `to` query parameters take them
// (ISO 8601, inclusive). The browser's date-time inputs are in local time; the query is in UTC.

export interface TimeRange {
  from?: string;
  to?: string;
}

/** A `datetime-local` input's value (`2026-03-01T10:00`, local time) as an ISO 8601 instant; empty for none. */
export function instantOfLocalInput(value: string): string | undefined {
  if (!value) return undefined;
  const time = new Date(value).getTime();
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

export function TimeRangeInputs({ noun, range, onChange }: { noun: string; range: TimeRange; onChange(range: TimeRange): void }) {
  return (
    <>
      <label>
        {noun} from
        <input type="datetime-local" name="from" onChange={(event) => onChange({ ...range, from: instantOfLocalInput(event.currentTarget.value) })} />
      </label>
      <label>
        {noun} to
        <input type="datetime-local" name="to" onChange={(event) => onChange({ ...range, to: instantOfLocalInput(event.currentTarget.value) })} />
      </label>
    </>
  );
}
