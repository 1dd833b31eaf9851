// Files operators write (extraction configurations, workflow definitions): the problems found in
// them, located by a path like "steps[2].needs[0]". Reading their text (YAML) is
// operator-document-text.ts, apart so that functions checking stored values do not bundle the YAML parser.

import type { z } from 'zod';

export interface DocumentProblem {
  /** Location in the document, like "documentTypes[1].fields[0].type"; "" for the whole document. */
  path: string;
  message: string;
}

export function formatDocumentPath(path: readonly PropertyKey[]): string {
  return path
    .map((segment, index) => (typeof segment === 'number' ? `[${segment}]` : `${index === 0 ? '' : '.'}${String(segment)}`))
    .join('');
}

/** The value at `path` inside `input`, or undefined where the path leaves it. */
function valueAtPath(input: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = input;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

/**
 * Where a union failed, zod says only "Invalid input": `explainUnion` tells the problems of the
 * branch the author meant (undefined keeps zod's message). Unknown keys are named one by one.
 */
export function problemsFromZodIssues(
  issues: readonly z.core.$ZodIssue[],
  input: unknown,
  explainUnion: (issue: z.core.$ZodIssueInvalidUnion, value: unknown, path: PropertyKey[]) => DocumentProblem[] | undefined,
  basePath: readonly PropertyKey[] = [],
): DocumentProblem[] {
  const problems: DocumentProblem[] = [];
  for (const issue of issues) {
    const path = [...basePath, ...issue.path];
    const explained = issue.code === 'invalid_union' ? explainUnion(issue, valueAtPath(input, issue.path), path) : undefined;
    if (explained) problems.push(...explained);
    else if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) problems.push({ path: formatDocumentPath([...path, key]), message: 'is not a known setting' });
    } else problems.push({ path: formatDocumentPath(path), message: issue.message });
  }
  return problems;
}

const typeNames: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  record: 'an object',
};

/**
 * Operators read the problems, not the validator's source: plain wording for zod's issues
 * ("is required", "must be one of GET, POST", "must be at least 1") instead of "Invalid input:
 * expected string, received undefined" or "Too small: expected number to be >=1". Pass it to
 * `safeParse(input, { error: plainIssueMessage })`; a message a schema sets itself still wins.
 */
export const plainIssueMessage: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${typeNames[issue.expected] ?? issue.expected}`;
    case 'invalid_value':
      return issue.values.length === 1 ? `must be ${JSON.stringify(issue.values[0])}` : `must be one of ${issue.values.map(String).join(', ')}`;
    case 'too_small':
      return `must ${boundWording(issue.origin, 'least', issue.minimum, issue.inclusive)}`;
    case 'too_big':
      return `must ${boundWording(issue.origin, 'most', issue.maximum, issue.inclusive)}`;
    default:
      return undefined;
  }
};

function boundWording(origin: string, side: 'least' | 'most', bound: number | bigint, inclusive = true): string {
  if (origin === 'array') return `have at ${side} ${bound} item${bound === 1 ? '' : 's'}`;
  if (origin === 'string') return side === 'least' && bound === 1 ? 'not be empty' : `be at ${side} ${bound} characters long`;
  if (inclusive) return `be at ${side} ${bound}`;
  return side === 'least' ? `be more than ${bound}` : `be less than ${bound}`;
}
