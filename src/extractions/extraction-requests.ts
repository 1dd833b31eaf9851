import type { ValidationIssue } from '../platform/errors.ts';
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

/** At most 50 labels (docType counts as one), keys 1-64 and values 1-512 characters, none blank. */
export function labelIssues(labels: Record<string, string> | undefined): ValidationIssue[] {
  if (!labels) return [];
  const issues: ValidationIssue[] = [];
  const entries = Object.entries(labels);
  if (entries.length > maximumLabels) {
    issues.push({ field: 'labels', issue: `At most ${maximumLabels} labels are allowed (docType counts as one); got ${entries.length}.` });
  }
  for (const [key, value] of entries) {
    const field = `labels.${key}`;
    if ([...key].length > maximumLabelKeyLength) issues.push({ field, issue: `The label key must be 1-${maximumLabelKeyLength} characters.` });
    else if (key.trim() === '') issues.push({ field, issue: 'The label key must not be empty or blank.' });
    if ([...value].length > maximumLabelValueLength) issues.push({ field, issue: `The label value must be 1-${maximumLabelValueLength} characters.` });
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
  if (hasUrl) {
    const checked = checkOutboundUrl(document.url!, { refuseFragment: true }, policy);
    if (!checked.ok) issues.push({ field: 'document.url', issue: `The URL ${checked.issue}.` });
  }
  if (document.fileName !== undefined && hasFileId) {
    issues.push({ field: 'document.fileName', issue: 'names a downloaded document; send it only with document.url.' });
  }
  return issues;
}
