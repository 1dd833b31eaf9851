// Value correction (an extension of feedback, README "Value correction"): field-level feedback may carry
// `correctedValue`. The extraction's output then shows it beside the extracted `value`, with when, by
// which key and by which feedback it was corrected. The correction is also remembered for the document's
// content (its SHA-256), so a later extraction of the same document (a reprocess, another upload, a
// workflow's document_insights step) carries it from the moment its output is stored: its event, its
// step output and its GET all show the reviewed value. `paperflow-admin feedback export` reads the
// remembered corrections back as a labelled set.

import type { CorrectionNote, ExtractedField, ExtractionOutput } from './extraction.ts';

/** A corrected field of one extraction (the output's own corrections, by field id). */
export interface FieldCorrection extends CorrectionNote {
  /** Checked and normalized for the field's type; null: the document does not show the field. */
  correctedValue: unknown;
}

/** The document a correction was made on, as the export needs it (the file outlives nothing: it may be gone). */
export interface CorrectedDocument {
  fileId?: string;
  fileName?: string;
  mimeType?: string;
}

/** A correction remembered for the document's content: one per workspace, content, document type and field name. */
export interface ContentCorrection extends FieldCorrection {
  workspaceId: string;
  sha256: string;
  docType: string;
  fieldName: string;
  fieldType: string;
  document: CorrectedDocument;
}

/** Where the corrections of a document's content are kept (latest per field wins). */
export interface ContentCorrections {
  remember(correction: ContentCorrection): Promise<void>;
  ofContent(workspaceId: string, sha256: string): Promise<ContentCorrection[]>;
  /** Every remembered correction of the workspace, for the export (in content order). */
  ofWorkspace(workspaceId: string): Promise<ContentCorrection[]>;
}

/** The output with each corrected field's `correctedValue` and `correction` beside its `value`. */
export function withCorrections(output: ExtractionOutput, corrections: ReadonlyMap<string, FieldCorrection>): ExtractionOutput {
  if (corrections.size === 0) return output;
  return {
    ...output,
    fields: output.fields.map((field) => {
      const correction = corrections.get(field.id);
      if (!correction) return field;
      const { correctedValue, ...note } = correction;
      return { ...field, correctedValue, correction: note };
    }),
  };
}

/**
 * The remembered corrections that apply to a new output of the same content: same document type, and a
 * field of the same name and type (a configuration changed since may have changed what a name means).
 */
export function correctionsForOutput(output: ExtractionOutput, remembered: readonly ContentCorrection[]): Map<string, FieldCorrection> {
  const corrections = new Map<string, FieldCorrection>();
  if (!output.docType) return corrections;
  for (const field of output.fields) {
    const match = remembered.find((correction) => correction.docType === output.docType && correction.fieldName === field.name && correction.fieldType === field.type);
    if (match) corrections.set(field.id, fieldCorrectionOf(match));
  }
  return corrections;
}

export function fieldCorrectionOf(correction: FieldCorrection): FieldCorrection {
  const { correctedValue, correctedAt, correctedBy, feedbackId, extractionId } = correction;
  return { correctedValue, correctedAt, correctedBy, feedbackId, extractionId };
}

/** What a downstream reader should use: the reviewer's value when there is one. */
export function reviewedValueOf(field: Pick<ExtractedField, 'value' | 'correctedValue' | 'correction'>): unknown {
  return field.correction !== undefined ? field.correctedValue : field.value;
}

