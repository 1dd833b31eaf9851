import type { ExtractedField, ExtractionOutput, ExtractionRecord } from './extraction.ts';
import type { ExtractionOutputs } from './extraction-store.ts';
import { correctionsForOutput, withCorrections, type ContentCorrections, type CorrectedDocument, type FieldCorrection } from './field-corrections.ts';

/** Outputs up to this size stay in the table (one GetItem); larger ones go to S3 (the 400 KB item limit). */
export const inlineOutputLimitBytes = 300 * 1024;

/** The stored output of one extraction as extracted, and the corrections made to it since, by field id. */
export interface StoredOutput {
  output: ExtractionOutput;
  corrections: Map<string, FieldCorrection>;
}

/** Where an extraction's output and its corrections are kept (aws/dynamodb-extraction-outputs.ts). */
export interface ExtractionOutputRecords {
  put(record: Pick<ExtractionRecord, 'id' | 'workspaceId' | 'generation'>, output: ExtractionOutput, corrections: ReadonlyMap<string, FieldCorrection>): Promise<void>;
  get(extractionId: string): Promise<StoredOutput | undefined>;
  /** Sets (or replaces) the correction of one field; removed with the extraction's other items. */
  putCorrection(extractionId: string, fieldId: string, correction: FieldCorrection): Promise<void>;
  /** Removes the large output's object, if any. */
  deleteObject(extractionId: string): Promise<void>;
}

/**
 * The extraction output as clients read it: as extracted, with each corrected field's reviewed value
 * beside its extracted one (field-corrections.ts). A new output of a document already corrected in
 * the workspace starts with those corrections.
 */
export class ExtractionOutputStore implements ExtractionOutputs {
  constructor(
    private readonly outputs: ExtractionOutputRecords,
    private readonly contentCorrections: ContentCorrections,
  ) {}

  /** `sha256` is the document's content: its corrections carry over to this output. */
  async put(record: Pick<ExtractionRecord, 'id' | 'workspaceId' | 'generation' | 'sha256'>, output: ExtractionOutput): Promise<void> {
    const remembered = record.sha256 ? await this.contentCorrections.ofContent(record.workspaceId, record.sha256) : [];
    await this.outputs.put(record, output, correctionsForOutput(output, remembered));
  }

  async get(extractionId: string): Promise<ExtractionOutput | undefined> {
    const stored = await this.outputs.get(extractionId);
    return stored && withCorrections(stored.output, stored.corrections);
  }

  /**
   * Corrects one field of this extraction's output and remembers the correction for the document's
   * content (when known), so later extractions of the same document carry it.
   */
  async correct(
    record: Pick<ExtractionRecord, 'id' | 'workspaceId' | 'sha256'> & { document: CorrectedDocument },
    output: Pick<ExtractionOutput, 'docType'>,
    field: Pick<ExtractedField, 'id' | 'name' | 'type'>,
    correction: FieldCorrection,
  ): Promise<void> {
    await this.outputs.putCorrection(record.id, field.id, correction);
    if (!record.sha256 || !output.docType) return;
    const { fileId, fileName, mimeType } = record.document;
    await this.contentCorrections.remember({
      ...correction,
      workspaceId: record.workspaceId,
      sha256: record.sha256,
      docType: output.docType,
      fieldName: field.name,
      fieldType: field.type,
      document: { ...(fileId ? { fileId } : {}), ...(fileName ? { fileName } : {}), ...(mimeType ? { mimeType } : {}) },
    });
  }

  /** Removes the S3 object, if any; the OUTPUT item and corrections go with the extraction's other items. */
  deleteObject(extractionId: string): Promise<void> {
    return this.outputs.deleteObject(extractionId);
  }
}
