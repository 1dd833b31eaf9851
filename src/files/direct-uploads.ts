import { newIdentifier } from '../infrastructure/identifiers.ts';
import { fileObjectKey, type FileBlobStore } from './file-blobs.ts';
import { toView, type FileView } from './file-lookup.ts';
import { cleanFileName } from './file-names.ts';
import type { FileRecord, FileRecordStore } from './file-records.ts';
import { receiveMultipartUpload, type MultipartBody } from './multipart-upload.ts';

// The direct upload (`POST /files` with multipart/form-data, and the extraction upload), apart from
// FileService: its sessions, finalizer and download links are code the extraction upload never runs.

export class DirectUploads {
  constructor(
    private readonly records: FileRecordStore,
    private readonly blobs: FileBlobStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Streams, checks, stores, and records a ready file. */
  async uploadFile(workspaceId: string, upload: MultipartBody): Promise<FileView> {
    return (await this.uploadFileWithTextParts(workspaceId, upload)).file;
  }

  /**
   * The same upload, also returning the form's other text parts (the extraction upload's `labels`).
   * The object is written while the request arrives when its size is known early (early-copy.ts),
   * otherwise from the spool once the whole file has been received and checked. `acceptTextParts`
   * may refuse the other parts by throwing: then no file record is written and an object already
   * stored is deleted, so a refused request leaves nothing behind.
   */
  async uploadFileWithTextParts(
    workspaceId: string,
    upload: MultipartBody,
    acceptTextParts: (textParts: Record<string, string>) => void = () => undefined,
  ): Promise<{ file: FileView; textParts: Record<string, string> }> {
    const fileId = newIdentifier('file');
    const objectKey = fileObjectKey(workspaceId, fileId);
    const received = await receiveMultipartUpload(upload.stream, upload.contentType, {
      declaredBodyBytes: upload.declaredBodyBytes,
      earlyStore: { open: (size, verdict) => this.blobs.startPut(objectKey, { size, mimeType: verdict.mimeType }) },
    });
    try {
      // Stored while it arrived, or spooled: then stored now, with our SHA-256 for S3 to check.
      const content = received.content;
      try {
        acceptTextParts(received.textParts);
      } catch (refusal) {
        if ('storedAt' in content) await this.blobs.delete(content.storedAt).catch(() => undefined); // the lifecycle rule is the backstop
        throw refusal;
      }
      if ('spooledAt' in content) await this.blobs.putFile(objectKey, content.spooledAt, { size: received.size, sha256: received.sha256, mimeType: received.verdict.mimeType });
      const record: FileRecord = {
        fileId,
        workspaceId,
        fileName: displayName([received.fileNameField, received.partFileName], received.verdict.extension),
        mimeType: received.verdict.mimeType,
        size: received.size,
        sha256: received.sha256,
        status: 'ready',
        createdAt: this.now().toISOString(),
        objectKey: 'storedAt' in content ? content.storedAt : objectKey,
      };
      // The record is written after the object, so an object-created notification for this key finds
      // either nothing or a ready file, and the finalizer leaves it alone.
      await this.records.create(record).catch(async (error: unknown) => {
        await this.blobs.delete(record.objectKey).catch(() => undefined); // the lifecycle rule is the backstop
        throw error;
      });
      return { file: toView(record), textParts: received.textParts };
    } finally {
      await received.discard();
    }
  }
}

/** The first sent name that survives cleaning; a default named after the sniffed type otherwise. */
export function displayName(sentNames: (string | undefined)[], extension: string): string {
  for (const sent of sentNames) {
    const cleaned = sent === undefined ? undefined : cleanFileName(sent);
    if (cleaned) return cleaned;
  }
  return `upload.${extension}`;
}
