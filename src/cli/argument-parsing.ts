import { InvalidArgumentError } from 'commander';
import { eventTypes, type EventType } from '../events/event-envelope.ts';

// Option values checked on the command line, before any request: a malformed one is a usage error
// (exit 2) that names the option, not a 400 from the API a round trip later. Each function is a
// commander argument parser: `(value, previous)` in, the accumulated value out, InvalidArgumentError
// for a value that cannot be used.

/** `--label k=v`, repeatable: the labels so far with this one added (a key given twice: the last wins). */
export function parseLabel(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const separator = value.indexOf('=');
  if (separator <= 0) throw new InvalidArgumentError('Give a label as key=value.');
  const key = value.slice(0, separator);
  const labelValue = value.slice(separator + 1);
  if (labelValue === '') throw new InvalidArgumentError(`The label ${key} has no value; give it as ${key}=value.`);
  return { ...previous, [key]: labelValue };
}

/** `--label key=value` as a list filter: also `key=`, which matches any value of the label. */
export function parseLabelFilter(value: string, previous: Record<string, string> = {}): Record<string, string> {
  if (/^[^=]+=$/.test(value)) return { ...previous, [value.slice(0, -1)]: '' };
  return parseLabel(value, previous);
}

export interface FileArgument {
  /** The multipart part name: `body.<name>` in the workflow. */
  name: string;
  path: string;
}

/** `--file name=@path`, repeatable (several files may share a name). */
export function parseFileArgument(value: string, previous: FileArgument[] = []): FileArgument[] {
  const match = /^([^=@]+)=@(.+)$/.exec(value);
  if (!match) throw new InvalidArgumentError('Give a file as name=@path, for example invoice=@./invoice.pdf.');
  return [...previous, { name: match[1]!, path: match[2]! }];
}

/** `--data JSON`: any JSON value. */
export function parseJsonArgument(value: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch (error) {
    throw new InvalidArgumentError(`It is not JSON: ${(error as Error).message}.`);
  }
}

/** `--page`: a whole number, 0 or more (pages count from 0, as in the API). */
export function parsePageNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('Give a whole number, 0 or more (the first page is 0).');
  return Number(value);
}

/** `--size`: 1 to 100, the API's page sizes. */
export function parsePageSize(value: string): number {
  const size = Number(value);
  if (!/^\d+$/.test(value) || size < 1 || size > 100) throw new InvalidArgumentError('Give a page size from 1 to 100.');
  return size;
}

/** `--interval` and the like: a positive number of seconds, fractions allowed. */
export function parsePositiveSeconds(value: string): number {
  const seconds = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !(seconds > 0)) throw new InvalidArgumentError('Give a positive number of seconds.');
  return seconds;
}

/** `--events a,b`, repeatable or comma-separated: known event types, each once. */
export function parseEventTypes(value: string, previous: EventType[] = []): EventType[] {
  const named = value.split(',').map((part) => part.trim()).filter(Boolean);
  if (named.length === 0) throw new InvalidArgumentError(`Name at least one event type: ${eventTypes.join(', ')}.`);
  const unknown = named.filter((type) => !(eventTypes as readonly string[]).includes(type));
  if (unknown.length > 0) throw new InvalidArgumentError(`Unknown event type ${unknown.join(', ')}; the types are ${eventTypes.join(', ')}.`);
  return [...new Set([...previous, ...(named as EventType[])])];
}

/** `--from`/`--to`: an ISO 8601 date-time (with its zone), sent as the API's UTC form. */
export function parseDateTime(value: string): string {
  const time = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(time)) throw new InvalidArgumentError('Give an ISO 8601 date-time, for example 2024-05-01T00:00:00Z.');
  return new Date(time).toISOString();
}

/** An option with a fixed set of values (`--status`, `--sort`): commander's choices, named in the message. */
export function oneOf<const T extends string>(choices: readonly T[]): (value: string) => T {
  return (value) => {
    if (!(choices as readonly string[]).includes(value)) throw new InvalidArgumentError(`Give one of ${choices.join(', ')}.`);
    return value as T;
  };
}

/** `--overlap-hours`: 0 to 168 hours, fractions allowed, as the rotate-secret operation takes it. */
export function parseOverlapHours(value: string): number {
  const hours = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || hours > 168) throw new InvalidArgumentError('Give a number of hours from 0 to 168 (fractions allowed: 0.5 is 30 minutes).');
  return hours;
}
