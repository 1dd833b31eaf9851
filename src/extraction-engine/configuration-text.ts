// The extraction engine's public module for an operator's configuration file (YAML or JSON text).
// Apart from index.ts because it brings the YAML parser (~110 KB minified): only the paths that take
// an operator's text (the admin CLI's `config apply`) import it; every function that reads the
// configuration a workspace already has checks the stored value through index.ts without it.

import { readOperatorDocument } from '../platform/operator-document-text.ts';
import { checkExtractionConfiguration, type ConfigurationParseResult } from './configuration/parse-extraction-configuration.ts';

/** YAML is a superset of JSON, so YAML is the default; pass 'json' for strict JSON. */
export function parseExtractionConfiguration(text: string, format: 'yaml' | 'json' = 'yaml'): ConfigurationParseResult {
  const read = readOperatorDocument(text, format);
  if (!read.ok) return read;
  return checkExtractionConfiguration(read.value);
}
