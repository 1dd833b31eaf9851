import type { ExtractionOutput, ExtractionRecord } from '../../../src/extractions/extraction.ts';
import type { ExtractionOutputRecords, StoredOutput } from '../../../src/extractions/extraction-output-store.ts';
import type { ContentCorrection, ContentCorrections, FieldCorrection } from '../../../src/extractions/field-corrections.ts';

// The output and correction ports in memory, for unit tests of the domain without an emulator.

export class InMemoryExtractionOutputRecords implements ExtractionOutputRecords {
  readonly stored = new Map<string, StoredOutput>();

  async put(record: Pick<ExtractionRecord, 'id'>, output: ExtractionOutput, corrections: ReadonlyMap<string, FieldCorrection>): Promise<void> {
    this.stored.set(record.id, { output: structuredClone(output), corrections: new Map(corrections) });
  }

  async get(extractionId: string): Promise<StoredOutput | undefined> {
    const stored = this.stored.get(extractionId);
    return stored && { output: structuredClone(stored.output), corrections: new Map(stored.corrections) };
  }

  async putCorrection(extractionId: string, fieldId: string, correction: FieldCorrection): Promise<void> {
    const stored = this.stored.get(extractionId);
    if (!stored) throw new Error(`no output of ${extractionId}`);
    stored.corrections.set(fieldId, correction);
  }

  // In memory the item and the large output's object are one entry: it goes with the object.
  async deleteObject(extractionId: string): Promise<void> {
    this.stored.delete(extractionId);
  }
}

export class InMemoryContentCorrections implements ContentCorrections {
  private readonly byKey = new Map<string, ContentCorrection>();

  async remember(correction: ContentCorrection): Promise<void> {
    this.byKey.set(`${correction.workspaceId}|${correction.sha256}#${correction.docType}#${correction.fieldName}`, correction);
  }

  async ofContent(workspaceId: string, sha256: string): Promise<ContentCorrection[]> {
    return (await this.ofWorkspace(workspaceId)).filter((correction) => correction.sha256 === sha256);
  }

  async ofWorkspace(workspaceId: string): Promise<ContentCorrection[]> {
    return [...this.byKey.entries()]
      .filter(([key]) => key.startsWith(`${workspaceId}|`))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([, correction]) => correction);
  }
}
