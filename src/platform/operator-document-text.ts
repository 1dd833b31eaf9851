// The text of a file an operator writes (an extraction configuration, a workflow definition), YAML or
// JSON, read into a value. Apart from operator-documents.ts: the YAML parser is ~110 KB minified, and
// only the paths that take an operator's text (the admin CLI, publishing) need it; the functions that
// check values already stored must not bundle it.

import { parseDocument } from 'yaml';
import type { DocumentProblem } from './operator-documents.ts';

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
