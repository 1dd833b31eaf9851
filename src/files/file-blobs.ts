import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { EarlyStoredContent } from './early-copy.ts';

// Blobs live under a per-workspace prefix, so a bucket policy or an export can work per workspace:
// - `workspaces/<ws>/files/<fileId>`: content of a direct upload, written once by the service;
// - `workspaces/<ws>/uploads/<fileId>`: where an upload session's pre-signed POST puts the bytes (a
//   client can write it again until the form expires, so it is never served);
// - `workspaces/<ws>/files/<fileId>/<uuid>`: the snapshot of a session upload that was checked and
//   is served, which no client can write.

export function fileObjectKey(workspaceId: string, fileId: string): string {
  return `workspaces/${workspaceId}/files/${fileId}`;
}

export function uploadObjectKey(workspaceId: string, fileId: string): string {
  return `workspaces/${workspaceId}/uploads/${fileId}`;
}

export function snapshotObjectKey(workspaceId: string, fileId: string): string {
  return `workspaces/${workspaceId}/files/${fileId}/${randomUUID()}`;
}

/** The workspace and file of an upload key, or undefined for every other key (content, snapshots). */
export function parseUploadObjectKey(objectKey: string): { workspaceId: string; fileId: string } | undefined {
  const match = /^workspaces\/(ws_[A-Za-z0-9_-]+)\/uploads\/(file_[A-Za-z0-9]+)$/.exec(objectKey);
  return match ? { workspaceId: match[1]!, fileId: match[2]! } : undefined;
}

/**
 * The files bucket's objects (download links: content-urls.ts; upload forms: upload-forms.ts). The S3
 * adapter is aws/s3-file-blob-store.ts.
 */
export interface FileBlobStore {
  /** Stores a spooled file; the store checks the bytes it keeps against `sha256`. */
  putFile(objectKey: string, path: string, content: { size: number; sha256: string; mimeType: string }): Promise<void>;
  /** Starts storing exactly `size` bytes that are still arriving (see EarlyStoredContent). */
  startPut(objectKey: string, content: { size: number; mimeType: string }): EarlyStoredContent;
  /** The object's size, or undefined when there is no such object. */
  size(objectKey: string): Promise<number | undefined>;
  /** Copies an object within the store; false when the source no longer exists. */
  copy(sourceKey: string, targetKey: string): Promise<boolean>;
  read(objectKey: string): Promise<Readable>;
  delete(objectKey: string): Promise<void>;
}
