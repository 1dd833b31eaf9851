// Files operators write (extraction configurations, workflow definitions): YAML or JSON text read
// into a value, and the problems found in it located by a path like "steps[2].needs[0]".

import { parseDocument } from 'yaml';
import type { z } from 'zod';

export interface DocumentProblem {
  /** Location in the document, like "documentTypes[1].fields[0].type"; "" for the whole document. */
  path: string;
  message: string;
}

export type DocumentReadResult = { ok: true; value: unknown } | { ok: false; problems: DocumentProblem[] };

/** YAML is a superset of JSON, so YAML reads both; 'json' is strict JSON. */
export function readOperatorDocument(text: string, format: 'yaml' | 'json'): DocumentReadResult {
  if (format === 'json') {
    try {
      return { ok: true, value: JSON.parse(text) as unknown };
    } catch (error) {
      return { ok: false, problems: [{ path: '', message: `is not valid JSON: ${(error as Error).message}` }] };
    }
  }
  const document = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (document.errors.length > 0) {
    return {
      ok: false,
      problems: document.errors.map((error) => ({
        path: '',
        message: `is not valid YAML${error.linePos ? ` (line ${error.linePos[0].line}, column ${error.linePos[0].col})` : ''}: ${error.message.split('\n')[0]}`,
      })),
    };
  }
  return { ok: true, value: document.toJS() as unknown };
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
