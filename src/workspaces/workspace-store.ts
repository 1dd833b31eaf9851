export interface Workspace {
  id: string;
  name: string;
  createdAt: string;
}

/**
 * `ws_` and then letters, digits, `_` or `-`: generated ids are `ws_<ULID>` (upper case), operators
 * may choose readable ones (`ws_default`). The upload keys' parser (files/file-blobs.ts) reads the same
 * characters back from object keys; the length bound keeps every key built from an id well within
 * DynamoDB's and S3's limits.
 */
const workspaceIdFormat = /^ws_[A-Za-z0-9_-]{1,64}$/;

export function isWorkspaceId(candidate: string): boolean {
  return workspaceIdFormat.test(candidate);
}

/**
 * Workspaces: the isolation boundary of every resource. Managed by operators, not the public API.
 * The records table's adapter is aws/dynamodb-workspace-store.ts.
 */
export interface WorkspaceStore {
  /** Creates the workspace unless it exists; returns whichever is stored (idempotent). */
  ensure(workspace: Workspace): Promise<Workspace>;
  get(workspaceId: string): Promise<Workspace | undefined>;
  /** Every workspace, oldest first. */
  list(): Promise<Workspace[]>;
}
