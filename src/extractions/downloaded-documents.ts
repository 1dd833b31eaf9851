import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { DocumentRejectedError } from '../extraction-engine/index.ts';
import { sniffContent } from '../files/content-sniffing.ts';
import { fileObjectKey, type FileBlobStore } from '../files/file-blobs.ts';
import { cleanFileName } from '../files/file-names.ts';
import type { FileRecord, FileRecordStore } from '../files/file-records.ts';
import { newIdentifier } from '../infrastructure/identifiers.ts';

// Kept apart from ExtractionDocuments: checking downloaded bytes means content sniffing (file-type),
// which only the fetch task needs to bundle.

/** URL documents, once fetched, become files of the workspace. */
export class DownloadedDocuments {
  constructor(
    private readonly records: FileRecordStore,
    private readonly blobs: FileBlobStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Stores a downloaded document as a file of the workspace, checked like an upload: the media type
   * is sniffed from the bytes, and programs or unsupported formats are refused (as a rejection here,
   * since the extraction was already accepted).
   */
  async store(workspaceId: string, content: Buffer, fileName: string | undefined): Promise<FileRecord> {
    if (content.length === 0) throw new DocumentRejectedError('empty', 'The downloaded document is empty (0 bytes).');
    const verdict = await sniffContent(content, true);
    if (!verdict.accepted) throw new DocumentRejectedError('unsupported-format', `The downloaded document is refused: ${verdict.reason}`);
    const fileId = newIdentifier('file');
    const record: FileRecord = {
      fileId,
      workspaceId,
      fileName: (fileName !== undefined ? cleanFileName(fileName) : undefined) ?? `download.${verdict.extension}`,
      mimeType: verdict.mimeType,
      size: content.length,
      sha256: createHash('sha256').update(content).digest('hex'),
      status: 'ready',
      createdAt: this.now().toISOString(),
      objectKey: fileObjectKey(workspaceId, fileId),
    };
    const spoolDirectory = await mkdtemp(join(tmpdir(), 'paperflow-download-'));
    try {
      const path = join(spoolDirectory, 'content');
      await writeFile(path, content);
      await this.blobs.putFile(record.objectKey, path, { size: record.size, sha256: record.sha256!, mimeType: record.mimeType });
    } finally {
      await rm(spoolDirectory, { recursive: true, force: true });
    }
    await this.records.create(record);
    return record;
  }
}
