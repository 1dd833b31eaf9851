import { NotFoundError } from '../platform/errors.ts';
import { isIdentifier } from '../infrastructure/identifiers.ts';
import type { SignedUrl } from './content-urls.ts';
import { defaultContentUrlLifetimeSeconds } from './file-limits.ts';
import type { BlockedReason, FileRecord, FileRecordStore, FileStatus } from './file-records.ts';

// Reading a file needs the record and a download signer only; kept apart from FileService so that
// `GET /files/{fileId}` does not bundle the upload path.

/** What the API shows of a file. `contentUrl` is only minted for ready files, on reads. */
export interface FileView {
  fileId: string;
  fileName: string;
  mimeType: string;
  size: number;
  sha256?: string;
  createdAt: string;
  status: FileStatus;
  blockedReason?: BlockedReason;
  contentUrl?: string;
  contentUrlExpiresAt?: string;
}

export interface ContentUrlSigner {
  contentUrl(objectKey: string, download: { fileName: string; mimeType: string }, lifetimeSeconds: number, now: Date): Promise<SignedUrl>;
}

export class FileLookup {
  constructor(
    private readonly records: FileRecordStore,
    private readonly contentUrls: ContentUrlSigner,
    private readonly now: () => Date = () => new Date(),
    private readonly contentUrlLifetimeSeconds: number = defaultContentUrlLifetimeSeconds,
  ) {}

  /** `GET /files/{fileId}`: the record, plus a freshly signed `contentUrl` when the file is ready. */
  async getFile(workspaceId: string, fileId: string): Promise<FileView> {
    // An id the service never mints names nothing, and one over the store's key size would be a 502.
    const record = isIdentifier('file', fileId) ? await this.records.get(workspaceId, fileId) : undefined;
    if (!record) throw new NotFoundError(`File ${fileId} does not exist.`);
    if (record.status !== 'ready') return toView(record);
    const content = await this.contentUrls.contentUrl(record.objectKey, record, this.contentUrlLifetimeSeconds, this.now());
    return { ...toView(record), contentUrl: content.url, contentUrlExpiresAt: content.expiresAt };
  }
}

export function toView(record: FileRecord): FileView {
  return {
    fileId: record.fileId,
    fileName: record.fileName,
    mimeType: record.mimeType,
    size: record.size,
    ...(record.sha256 ? { sha256: record.sha256 } : {}),
    createdAt: record.createdAt,
    status: record.status,
    ...(record.blockedReason ? { blockedReason: record.blockedReason } : {}),
  };
}
