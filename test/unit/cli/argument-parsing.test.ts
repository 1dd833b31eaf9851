import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import {
  oneOf,
  parseDateTime,
  parseEventTypes,
  parseFileArgument,
  parseJsonArgument,
  parseLabel,
  parseLabelFilter,
  parsePageNumber,
  parseOverlapHours,
  parsePageSize,
  parsePositiveSeconds,
} from '../../../src/cli/argument-parsing.ts';

describe('--label key=value', () => {
  it('accumulates labels, splitting at the first = so values may contain one', () => {
    const labels = parseLabel('formula=a=b', parseLabel('source=cli'));

    expect(labels).toEqual({ source: 'cli', formula: 'a=b' });
  });

  it('keeps the last value of a key given twice', () => {
    expect(parseLabel('source=second', parseLabel('source=first'))).toEqual({ source: 'second' });
  });

  it.each([['no =', 'source'], ['no key', '=cli'], ['no value', 'source=']])('refuses a label with %s', (_case, value) => {
    expect(() => parseLabel(value)).toThrow(InvalidArgumentError);
  });

  it('as a list filter, takes key= to mean any value of the label', () => {
    expect(parseLabelFilter('reviewed=', parseLabelFilter('batch=7'))).toEqual({ batch: '7', reviewed: '' });
  });
});

describe('--file name=@path', () => {
  it('accumulates files, several under one name', () => {
    const files = parseFileArgument('pages=@b.png', parseFileArgument('pages=@./a.png'));

    expect(files).toEqual([
      { name: 'pages', path: './a.png' },
      { name: 'pages', path: 'b.png' },
    ]);
  });

  it.each([['no @', 'invoice=invoice.pdf'], ['no name', '=@invoice.pdf'], ['no path', 'invoice=@']])('refuses a file with %s', (_case, value) => {
    expect(() => parseFileArgument(value)).toThrow(InvalidArgumentError);
  });
});

describe('--data JSON', () => {
  it('takes any JSON value', () => {
    expect(parseJsonArgument('{"name":"Ada","tags":[1,2]}')).toEqual({ name: 'Ada', tags: [1, 2] });
    expect(parseJsonArgument('null')).toBeNull();
  });

  it('refuses text that is not JSON, saying why', () => {
    expect(() => parseJsonArgument('{name: Ada}')).toThrow(/not JSON/);
  });
});

describe('--page and --size', () => {
  it('takes pages from 0 and sizes from 1 to 100', () => {
    expect([parsePageNumber('0'), parsePageNumber('12'), parsePageSize('1'), parsePageSize('100')]).toEqual([0, 12, 1, 100]);
  });

  it.each(['-1', '1.5', 'two', ''])('refuses the page %j', (value) => {
    expect(() => parsePageNumber(value)).toThrow(InvalidArgumentError);
  });

  it.each(['0', '101', '2.5', 'ten'])('refuses the size %j', (value) => {
    expect(() => parsePageSize(value)).toThrow(InvalidArgumentError);
  });
});

describe('--events', () => {
  it('takes comma-separated and repeated types, each once', () => {
    const types = parseEventTypes('workflow.run.failed', parseEventTypes('workflow.run.completed, workflow.run.failed'));

    expect(types).toEqual(['workflow.run.completed', 'workflow.run.failed']);
  });

  it('refuses an unknown type, naming it and the known ones', () => {
    expect(() => parseEventTypes('workflow.run.completed,extraction.done')).toThrow(/extraction\.done.*document-insights\.extraction\.completed/);
  });

  it('refuses an empty list', () => {
    expect(() => parseEventTypes(' , ')).toThrow(InvalidArgumentError);
  });
});

describe('other values', () => {
  it('turns a date-time with any zone into UTC', () => {
    expect(parseDateTime('2024-05-01T02:00:00+02:00')).toBe('2024-05-01T00:00:00.000Z');
  });

  it.each(['2024-05-01', 'yesterday', '2024-13-45T00:00:00Z'])('refuses the date-time %j', (value) => {
    expect(() => parseDateTime(value)).toThrow(InvalidArgumentError);
  });

  it('takes fractions of a second as an interval, never zero', () => {
    expect(parsePositiveSeconds('0.25')).toBe(0.25);
    expect(() => parsePositiveSeconds('0')).toThrow(InvalidArgumentError);
  });

  it('takes one of a fixed set of values, naming them otherwise', () => {
    const sortOrder = oneOf(['asc', 'desc']);

    expect(sortOrder('asc')).toBe('asc');
    expect(() => sortOrder('up')).toThrow(/asc, desc/);
  });
});

describe('--overlap-hours', () => {
  it('takes 0 to 168 hours, fractions allowed', () => {
    expect([parseOverlapHours('0'), parseOverlapHours('0.25'), parseOverlapHours('168')]).toEqual([0, 0.25, 168]);
  });

  it.each(['-1', '168.5', '1e2', 'a day', ''])('refuses %j', (value) => {
    expect(() => parseOverlapHours(value)).toThrow(InvalidArgumentError);
  });
});
