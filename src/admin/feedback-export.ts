// `paperflow-admin feedback export`: the documents reviewers corrected in a workspace, written as a
// labelled set in the development corpus's format (../shared/corpus/README.md): each document beside its
// `<document>.expected.json` with the ground truth under `fields`, and, for a corrected `line_items`
// table, `<document>.rows.json` as test/fixtures/line-items/ labels rows. scripts/eval-corpus.ts then
// measures the engine on the workspace's own documents (PAPERFLOW_CORPUS_DIR=<dir>).
//
// Only reviewed values are ground truth: a field nobody corrected was never checked by a person, so
// it is left out rather than scored against the extractor's own answer.

import { extname } from 'node:path';
import type { ContentCorrection } from '../extractions/field-corrections.ts';

export interface ExportedDocument {
  /** Path of the document inside the set, e.g. `invoice/3f2a…-acme.pdf`. */
  path: string;
  sha256: string;
  fileId: string;
  labels: Record<string, unknown>;
  /** The `.rows.json` label of a corrected line_items table. */
  rows?: Record<string, unknown>;
}

export interface SkippedDocument {
  sha256: string;
  reason: string;
}

/** The set's documents: where each comes from, and its labels. */
export interface LabelledSetPlan {
  documents: ExportedDocument[];
  skipped: SkippedDocument[];
}

const mediaTypeExtensions: Record<string, string> = {
  'application/pdf': '.pdf',
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/tiff': '.tiff',
  'image/webp': '.webp',
  'text/plain': '.txt',
  'application/xml': '.xml',
};

/** The corrections of a workspace grouped per document, as the corpus's files and labels. */
export function planLabelledSet(workspaceId: string, corrections: readonly ContentCorrection[]): LabelledSetPlan {
  const byContent = new Map<string, ContentCorrection[]>();
  for (const correction of corrections) byContent.set(correction.sha256, [...(byContent.get(correction.sha256) ?? []), correction]);
  const documents: ExportedDocument[] = [];
  const skipped: SkippedDocument[] = [];
  for (const [sha256, all] of byContent) {
    // A document is labelled as one type: the one its latest correction was made under.
    const latest = [...all].sort((a, b) => a.correctedAt.localeCompare(b.correctedAt)).at(-1)!;
    const ofType = all.filter((correction) => correction.docType === latest.docType);
    const fileId = [...ofType].reverse().find((correction) => correction.document.fileId)?.document.fileId;
    if (!fileId) {
      skipped.push({ sha256, reason: 'no file of the document is known (it was never stored as a file)' });
      continue;
    }
    const path = `${latest.docType}/${documentName(sha256, latest)}`;
    const fields: Record<string, unknown> = { doc_type: latest.docType };
    const absent: string[] = [];
    let rows: Record<string, unknown>[] | undefined;
    for (const correction of ofType) {
      if (correction.correctedValue === null) absent.push(correction.fieldName);
      else if (Array.isArray(correction.correctedValue)) {
        if (correction.fieldName === 'line_items') rows = correction.correctedValue as Record<string, unknown>[];
      } else fields[correction.fieldName] = correction.correctedValue;
    }
    if (rows && !('line_item_count' in fields)) fields.line_item_count = rows.length;
    const notes = [
      'Exported by paperflow-admin feedback export: only fields a reviewer corrected (feedback with correctedValue) are ground truth.',
      ...(absent.length > 0 ? [`Reviewed as not shown on the document: ${absent.join(', ')}.`] : []),
    ];
    documents.push({
      path,
      sha256,
      fileId,
      labels: {
        document: path.slice(path.lastIndexOf('/') + 1),
        source: `paperflow workspace ${workspaceId}`,
        sha256,
        fileId,
        gt_provenance: 'values corrected by reviewers through extraction feedback (correctedValue), normalised by the service as it writes each field type',
        fields,
        corrections: ofType.map((correction) => ({
          field: correction.fieldName,
          correctedAt: correction.correctedAt,
          correctedBy: correction.correctedBy,
          feedbackId: correction.feedbackId,
          extractionId: correction.extractionId,
        })),
        notes,
      },
      ...(rows ? { rows: { document: path, labelled_by: `reviewers of workspace ${workspaceId} (paperflow-admin feedback export)`, rows, notes: [] } } : {}),
    });
  }
  return { documents, skipped };
}

/** Unique per content, readable by its file name; never a path of its own (no slashes, no dot files). */
function documentName(sha256: string, correction: ContentCorrection): string {
  const fileName = correction.document.fileName ?? '';
  const extension = (extname(fileName) || mediaTypeExtensions[correction.document.mimeType ?? ''] || '').toLowerCase();
  const stem = fileName.slice(0, fileName.length - extname(fileName).length).replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '').slice(0, 60);
  return `${sha256.slice(0, 12)}${stem ? `-${stem}` : ''}${extension.replace(/[^a-z0-9.]/g, '')}`;
}
