import type { ValidationIssue } from '../platform/errors.ts';
import { textDefectOf } from '../platform/text-integrity.ts';
import { isIdentifier } from '../infrastructure/identifiers.ts';
import { checkOutboundUrl } from '../outbound/outbound-url.ts';
import type { OutboundUrlPolicy } from '../outbound/outbound-settings.ts';

// Rules of the create request that go beyond its JSON shape (spec: Extraction > create; Limits).

export const maximumLabels = 50;
export const maximumLabelKeyLength = 64;
export const maximumLabelValueLength = 512;
export const maximumFeedbackMessageLength = 1024;

export interface DocumentReference {
  fileId?: string;
  url?: string;
  fileName?: string;
}

/**
 * `__proto__` would set the prototype of any plain object labels are copied into, so it is refused
 * (422). `constructor` and `prototype` are ordinary keys: labels are written to the store as maps.
 */
const forbiddenLabelKeys = new Set(['__proto__']);

/**
 * At most 50 labels (docType counts as one), keys 1-64 and values 1-512 characters, none blank, all
 * intact text (src/platform/text-integrity.ts): a lone surrogate cannot be encoded in the label's index
 * key (nor in UTF-8). JSON bodies are held to that rule before they get here; a multipart labels part
 * is not a JSON body, so the rule is applied here too.
 */
export function labelIssues(labels: Record<string, string> | undefined): ValidationIssue[] {
  if (!labels) return [];
  const issues: ValidationIssue[] = [];
  const entries = Object.entries(labels);
  if (entries.length > maximumLabels) {
    issues.push({ field: 'labels', issue: `At most ${maximumLabels} labels are allowed (docType counts as one); got ${entries.length}.` });
  }
  for (const [key, value] of entries) {
    const field = `labels.${key}`;
    if (forbiddenLabelKeys.has(key)) issues.push({ field, issue: 'is not allowed as a label key' });
    else if (textDefectOf(key)) issues.push({ field, issue: `The label key ${textDefectOf(key)}.` });
    else if ([...key].length > maximumLabelKeyLength) issues.push({ field, issue: `The label key must be 1-${maximumLabelKeyLength} characters.` });
    else if (key.trim() === '') issues.push({ field, issue: 'The label key must not be empty or blank.' });
    if (textDefectOf(value)) issues.push({ field, issue: `The label value ${textDefectOf(value)}.` });
    else if ([...value].length > maximumLabelValueLength) issues.push({ field, issue: `The label value must be 1-${maximumLabelValueLength} characters.` });
    else if (value.trim() === '') issues.push({ field, issue: 'The label value must not be empty or blank.' });
  }
  return issues;
}

/**
 * Exactly one of `fileId` and `url` (both, or neither, is 422 on `document`). A URL must be https,
 * without user info or fragment, and its host must not be a private or loopback literal.
 */
export function documentReferenceIssues(document: DocumentReference, policy: OutboundUrlPolicy): ValidationIssue[] {
  const hasFileId = document.fileId !== undefined;
  const hasUrl = document.url !== undefined;
  if (hasFileId && hasUrl) return [{ field: 'document', issue: 'Send either document.fileId or document.url, not both.' }];
  if (!hasFileId && !hasUrl) return [{ field: 'document', issue: 'Send document.fileId (an uploaded file) or document.url (an HTTPS URL).' }];
  const issues: ValidationIssue[] = [];
  if (hasFileId && document.fileId!.trim() === '') issues.push({ field: 'document.fileId', issue: 'must not be empty' });
  else if (hasFileId && !isIdentifier('file', document.fileId!)) {
    issues.push({ field: 'document.fileId', issue: 'is not a file id (file_ followed by 26 characters); no such file exists.' });
  }
  if (hasUrl) {
    const checked = checkOutboundUrl(document.url!, { refuseFragment: true }, policy);
    if (!checked.ok) issues.push({ field: 'document.url', issue: `The URL ${checked.issue}.` });
  }
  if (document.fileName !== undefined && hasFileId) {
    issues.push({ field: 'document.fileName', issue: 'names a downloaded document; send it only with document.url.' });
  }
  return issues;
}
