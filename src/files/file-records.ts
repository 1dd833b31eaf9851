/**
 * Readiness of a file:
 * - `ready`: the content is stored and sniffed; `contentUrl` downloads it.
 * - `pending_upload`: an upload session was created and the bytes have not arrived (or are being
 *   checked); size and mimeType are the client's declared values until then.
 * - `blocked`: the uploaded object was refused after the fact and deleted; `blockedReason` says why
 *   with the code the direct upload would have answered (415, 413 or 422).
 */
export type FileStatus = 'ready' | 'pending_upload' | 'blocked';

export interface BlockedReason {
  code: 'UNSUPPORTED_MEDIA_TYPE' | 'PAYLOAD_TOO_LARGE' | 'VALIDATION_FAILED';
  message: string;
}

export interface FileRecord {
  fileId: string;
  workspaceId: string;
  fileName: string;
  mimeType: string;
  size: number;
  sha256?: string;
  status: FileStatus;
  blockedReason?: BlockedReason;
  createdAt: string;
  /** Object key of the content in the files bucket. */
  objectKey: string;
}

/**
 * The file records. `create` refuses a record that exists; the `mark*` moves happen only from
 * `pending_upload` and say whether they did. The records table's adapter is aws/dynamodb-file-record-store.ts.
 */
export interface FileRecordStore {
  create(record: FileRecord): Promise<void>;
  /** The workspace's file, or undefined (another workspace's file is as absent as a missing one). */
  get(workspaceId: string, fileId: string): Promise<FileRecord | undefined>;
  /** Removes a record written by a request that was then refused (a run input form's other files). */
  delete(workspaceId: string, fileId: string): Promise<void>;
  /** Moves a pending upload to `ready`; false when it was not pending (finalized twice, blocked). */
  markReady(workspaceId: string, fileId: string, content: { mimeType: string; size: number; sha256: string; objectKey: string }): Promise<boolean>;
  /** Moves a pending upload to `blocked` with the reason; false when it was not pending. */
  markBlocked(workspaceId: string, fileId: string, reason: BlockedReason, size: number): Promise<boolean>;
}
