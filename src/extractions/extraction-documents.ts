import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { DocumentRejectedError } from '../extraction-engine/document.ts';
import { sniffContent } from '../files/content-sniffing.ts';
import { fileObjectKey, type FileBlobStore } from '../files/file-blobs.ts';
import { cleanFileName } from '../files/file-names.ts';
import type { FileRecord, FileRecordStore } from '../files/file-records.ts';
import type { FileService } from '../files/file-service.ts';
import { NotFoundError } from '../http/errors.ts';
import { newIdentifier } from '../infrastructure/identifiers.ts';

/** The files domain as extractions use it: source documents are files of the workspace. */
export class ExtractionDocuments {
  constructor(
    private readonly records: FileRecordStore,
    private readonly blobs: FileBlobStore,
    private readonly files: FileService,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The files domain's streamed multipart upload (same limits, 413 and 415), with the other text parts. */
  upload(workspaceId: string, body: Readable, contentType: string) {
    return this.files.uploadFileWithTextParts(workspaceId, body, contentType);
  }

  find(workspaceId: string, fileId: string): Promise<FileRecord | undefined> {
    return this.records.get(workspaceId, fileId);
  }

  async read(record: FileRecord): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of (await this.blobs.read(record.objectKey)) as AsyncIterable<Buffer>) chunks.push(chunk);
    return Buffer.concat(chunks);
  }

  /** A freshly minted download URL, or undefined when the file is gone (expired staging storage). */
  async contentUrl(workspaceId: string, fileId: string): Promise<string | undefined> {
    try {
      return (await this.files.getFile(workspaceId, fileId)).contentUrl;
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  /**
   * Stores a downloaded document as a file of the workspace, checked like an upload: the media type
   * is sniffed from the bytes, and programs or unsupported formats are refused (as a rejection here,
   * since the extraction was already accepted).
   */
  async storeDownloaded(workspaceId: string, content: Buffer, fileName: string | undefined): Promise<FileRecord> {
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

