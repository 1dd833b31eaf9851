import type { Workspace, WorkspaceStore } from '../../../src/workspaces/workspace-store.ts';

/** The DynamoDB adapter's behaviour over a Map, for unit tests without an emulator. */
export class InMemoryWorkspaceStore implements WorkspaceStore {
  readonly workspaces = new Map<string, Workspace>();

  constructor(workspaces: Workspace[] = []) {
    for (const workspace of workspaces) this.workspaces.set(workspace.id, { ...workspace });
  }

  async ensure(workspace: Workspace): Promise<Workspace> {
    if (!this.workspaces.has(workspace.id)) this.workspaces.set(workspace.id, { ...workspace });
    return { ...this.workspaces.get(workspace.id)! };
  }

  async get(workspaceId: string): Promise<Workspace | undefined> {
    const workspace = this.workspaces.get(workspaceId);
    return workspace ? { ...workspace } : undefined;
  }

  async list(): Promise<Workspace[]> {
    return [...this.workspaces.values()]
      .sort((a, b) => `${a.createdAt}#${a.id}`.localeCompare(`${b.createdAt}#${b.id}`))
      .map((workspace) => ({ ...workspace }));
  }
}
