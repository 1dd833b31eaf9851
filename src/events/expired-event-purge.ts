
/** What hangs on an event in other modules (webhook deliveries and their attempts): removed first. */
export interface EventDependents {
  purgeOfEvent(eventId: string): Promise<void>;
}

export interface EventPayloadDeletion {
  delete(objectKey: string): Promise<void>;
}

export interface PurgeReport {
  workspaces: number;
  purged: number;
  failed: number;
}

/** An event past its `expiresAt`, as the purge removes it. */
export interface ExpiredEvent {
  eventId: string;
  /** Where its data is when it was too large for the record. */
  dataObjectKey?: string;
}

/** The recorded events as the purge reads and removes them. */
export interface ExpiredEvents {
  /** The workspace's events whose `expiresAt` is `now` or earlier. */
  ofWorkspace(workspaceId: string, now: Date): Promise<ExpiredEvent[]>;
  /** Removes the event's own record (what hangs on it is removed first, by the purge). */
  delete(event: ExpiredEvent): Promise<void>;
}

/**
 * Deletes events past their `expiresAt`, with what hangs on them: the local stand-in for DynamoDB TTL
 * (dynalite has none), harmless deployed where TTL usually got there first (docs/events.md, Retention).
 * Workspace by workspace (never a scan of every event). Per event the dependents go first, then the
 * large payload object, then the event itself: a run that stops half-way leaves the event to be found
 * again by the next run.
 */
export class ExpiredEventPurge {
  constructor(
    private readonly events: ExpiredEvents,
    private readonly dependencies: {
      workspaces: { list(): Promise<{ id: string }[]> };
      dependents: EventDependents;
      payloads: EventPayloadDeletion;
      now?: () => Date;
      onFailure?: (eventId: string, error: unknown) => void;
    },
  ) {}

  async purge(): Promise<PurgeReport> {
    const report: PurgeReport = { workspaces: 0, purged: 0, failed: 0 };
    const now = (this.dependencies.now ?? (() => new Date()))();
    for (const workspace of await this.dependencies.workspaces.list()) {
      report.workspaces += 1;
      for (const expired of await this.events.ofWorkspace(workspace.id, now)) {
        try {
          await this.purgeEvent(expired);
          report.purged += 1;
        } catch (error) {
          // One event that cannot be removed now does not stop the others; the next run finds it.
          report.failed += 1;
          this.dependencies.onFailure?.(expired.eventId, error);
        }
      }
    }
    return report;
  }

  private async purgeEvent(event: ExpiredEvent): Promise<void> {
    await this.dependencies.dependents.purgeOfEvent(event.eventId);
    if (event.dataObjectKey) await this.dependencies.payloads.delete(event.dataObjectKey);
    await this.events.delete(event);
  }
}
