import type { AppliedConfiguration, AppliedConfigurations } from '../../../src/extraction-configurations/extraction-configuration-store.ts';

/** Applied configurations in a Map, for unit tests without an emulator. */
export class InMemoryAppliedConfigurations implements AppliedConfigurations {
  readonly applied = new Map<string, AppliedConfiguration>();

  async find(workspaceId: string): Promise<AppliedConfiguration | undefined> {
    const applied = this.applied.get(workspaceId);
    return applied ? structuredClone(applied) : undefined;
  }

  async save(workspaceId: string, applied: AppliedConfiguration): Promise<void> {
    this.applied.set(workspaceId, structuredClone(applied));
  }
}
