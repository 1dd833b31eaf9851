import type { ComponentChildren } from 'preact';

// The filters of the lists (extractions, runs, events), each sent as the API's query parameter: a
// choice among fixed values ("Any" for none), and the "from" and "to" of a time range (ISO 8601,
// inclusive; the browser's date-time inputs are in local time, the query is in UTC).

export interface Choice<Value extends string> {
  value: Value;
  label?: string;
}

/** A select of `choices` with "Any" first; `onChange` gets the chosen value, or '' for any. */
export function ChoiceFilter<Value extends string>({ label, name, value, choices, onChange }: { label: ComponentChildren; name: string; value: NoInfer<Value> | ''; choices: readonly Choice<Value>[]; onChange(value: NoInfer<Value> | ''): void }) {
  return (
    <label>
      {label}
      <select name={name} value={value} onChange={(event) => onChange(choiceOf(choices, event.currentTarget.value))}>
        <option value="">Any</option>
        {choices.map((choice) => (
          <option value={choice.value}>{choice.label ?? choice.value}</option>
        ))}
      </select>
    </label>
  );
}

function choiceOf<Value extends string>(choices: readonly Choice<Value>[], selected: string): Value | '' {
  return choices.find((choice) => choice.value === selected)?.value ?? '';
}

/** Values shown as themselves. */
export const choicesOf = <Value extends string>(values: readonly Value[]): Choice<Value>[] => values.map((value) => ({ value }));

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
