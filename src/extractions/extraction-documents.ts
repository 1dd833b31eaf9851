import type { FileBlobStore } from '../files/file-blobs.ts';
import type { FileLookup } from '../files/file-lookup.ts';
import type { FileRecord, FileRecordStore } from '../files/file-records.ts';
import { NotFoundError } from '../platform/errors.ts';

// Reads only: documents that are already files of the workspace. Taking documents in (uploads and
// downloads) is ExtractionDocumentIntake, so the handlers that never do stay free of busboy and file-type.

/** The files domain as extractions read it: source documents are files of the workspace. */
export class ExtractionDocuments {
  constructor(
    private readonly records: FileRecordStore,
    private readonly blobs: FileBlobStore,
    private readonly lookup: FileLookup,
  ) {}

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
      return (await this.lookup.getFile(workspaceId, fileId)).contentUrl;
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }
}
