import { DeleteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { queryPages } from '../infrastructure/dynamodb-queries.ts';
import { eventRetentionDays } from './event-envelope.ts';
import { workspaceEventsPartition } from './event-keys.ts';

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

const retentionMs = eventRetentionDays * 24 * 3600 * 1000;

/**
 * Deletes events past their `expiresAt`, with what hangs on them: the local stand-in for DynamoDB TTL
 * (dynalite has none), harmless deployed where TTL usually got there first (docs/events.md, Retention).
 *
 * Never a Scan: for each workspace, a Query of its events partition (gsi1 `WS#<ws>#EVENTS`) below the
 * key `<now − 90 days>`, since `expiresAt` is `occurredAt` + 90 days; `expiresAt <= now` as a filter
 * keeps it exact to the second. Per event the dependents go first, then the large payload object, then
 * the event item: a run that stops half-way leaves the event to be found again by the next run.
 */
export class ExpiredEventPurge {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
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
      for (const expired of await this.expiredEvents(workspace.id, now)) {
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

  private async expiredEvents(workspaceId: string, now: Date): Promise<{ pk: string; sk: string; eventId: string; dataObjectKey?: string }[]> {
    const expired: { pk: string; sk: string; eventId: string; dataObjectKey?: string }[] = [];
    const pages = queryPages(this.client, {
      TableName: this.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk < :cutoff',
      FilterExpression: 'expiresAt <= :now',
      ExpressionAttributeValues: {
        ':pk': workspaceEventsPartition(workspaceId),
        // An event that occurred within the last 90 days cannot have expired; a second's margin for
        // expiresAt's rounding down, the filter decides.
        ':cutoff': new Date(now.getTime() - retentionMs + 1000).toISOString(),
        ':now': Math.floor(now.getTime() / 1000),
      },
      ProjectionExpression: 'pk, sk, eventId, dataObjectKey',
    });
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        expired.push({ pk: item.pk as string, sk: item.sk as string, eventId: item.eventId as string, dataObjectKey: item.dataObjectKey as string | undefined });
      }
    }
    return expired;
  }

  private async purgeEvent(event: { pk: string; sk: string; eventId: string; dataObjectKey?: string }): Promise<void> {
    await this.dependencies.dependents.purgeOfEvent(event.eventId);
    if (event.dataObjectKey) await this.dependencies.payloads.delete(event.dataObjectKey);
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: { pk: event.pk, sk: event.sk } }));
  }
}
