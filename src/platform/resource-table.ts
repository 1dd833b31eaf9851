import type { TableDefinition } from '../infrastructure/resource-definitions.ts';
import type { ResourceAccess } from './resource-access.ts';

// One typed table of the stack's resources, beside the route and trigger tables: the records table,
// the files bucket (and the prefixes its objects live under), the queues with their dead-letter
// queues, the state machines and the signing key. It drives the CDK stack (lib/paperflow-storage.ts,
// lib/triggers.ts), the local provisioning (src/local/provision-resources.ts, the local Step
// Functions) and the environment each function gets: a row names the variable through which a
// function granted the resource (by its route or trigger row's `access`) finds it, and the
// composition root (src/composition/) reads exactly those variables. Adding a queue is one row
// (assembled in src/manifest/resources.ts) plus its consumer's trigger row.

interface ResourceRow {
  /** The name `access` uses: `recordsTable`, `filesBucket`, `signingKey`, or a key of `queues` / `stateMachines`. */
  name: string;
  /** Deployed, set on each function granted the resource; locally, set by the local stack. */
  environmentVariable: string;
}

export interface TableResource extends ResourceRow, TableDefinition {
  kind: 'table';
  name: 'recordsTable';
  /** The construct id of the deployed table. */
  id: string;
}

/** Objects under `prefix` expire after `expirationDays`; without a rule they stay until removed. */
export interface BucketPrefix {
  prefix: string;
  /** What lives there (the lifecycle rule's id, deployed and local). */
  ruleId: string;
  expirationDays?: number;
  /** Multipart uploads left unfinished under the prefix are aborted after this many days (deployed). */
  abortIncompleteUploadsAfterDays?: number;
}

export interface BucketResource extends ResourceRow {
  kind: 'bucket';
  name: 'filesBucket';
  id: string;
  prefixes: readonly BucketPrefix[];
  corsRules: readonly {
    allowedMethods: readonly ('GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE')[];
    allowedOrigins: readonly string[];
    allowedHeaders: readonly string[];
    exposedHeaders: readonly string[];
    maxAgeSeconds: number;
  }[];
}

/** A queue and its dead-letter queue, where a message goes after `maxReceiveCount` receives. */
export interface QueueResource extends ResourceRow {
  kind: 'queue';
  /** The construct id of the deployed queue; its dead-letter queue's is `deadLetterQueueId`. */
  id: string;
  deadLetterQueueId: string;
  /** The local queue's name after the stack's prefix (`paperflow-local-<localName>`). */
  localName: string;
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
  /**
   * Locally only: a variable that shortens the visibility timeout (tests of redelivery); deployed the
   * row's value holds, as Lambda requires it to cover the consumer's timeout.
   */
  localVisibilityTimeoutVariable?: string;
  /** What an operator reads on the dead-letter queue's alarm. */
  deadLetterAlarmDescription: string;
}

/** A state machine whose ASL file is the source of truth; its task rows (triggers) fill its placeholders. */
export interface StateMachineResource extends ResourceRow {
  kind: 'stateMachine';
  /** Relative to the repository root, e.g. `statemachines/extraction.asl.json`. */
  definitionFile: string;
}

/** The KMS key of webhook signing secrets (envelope encryption). Locally without KMS, a key file. */
export interface KeyResource extends ResourceRow {
  kind: 'key';
  name: 'signingKey';
  id: string;
  description: string;
}

export type ResourceDefinition = TableResource | BucketResource | QueueResource | StateMachineResource | KeyResource;

export function resourcesOfKind<Kind extends ResourceDefinition['kind']>(
  resources: readonly ResourceDefinition[],
  kind: Kind,
): Extract<ResourceDefinition, { kind: Kind }>[] {
  return resources.filter((resource): resource is Extract<ResourceDefinition, { kind: Kind }> => resource.kind === kind);
}

/** The one row of a kind that has exactly one (the records table, the files bucket, the signing key). */
export function theResource<Kind extends 'table' | 'bucket' | 'key'>(resources: readonly ResourceDefinition[], kind: Kind): Extract<ResourceDefinition, { kind: Kind }> {
  const [row, ...others] = resourcesOfKind(resources, kind);
  if (!row || others.length > 0) throw new Error(`The resource table must have exactly one ${kind} row.`);
  return row;
}

/** A row for every resource `access` names, each with the access asked: the unit both the CDK stack and the composition root walk. */
export type NamedAccess =
  | { kind: 'table'; resource: TableResource; access: NonNullable<ResourceAccess['recordsTable']> }
  | { kind: 'bucket'; resource: BucketResource; access: NonNullable<ResourceAccess['filesBucket']> }
  | { kind: 'key'; resource: KeyResource; access: NonNullable<ResourceAccess['signingKey']> }
  | { kind: 'queue'; resource: QueueResource; access: NonNullable<NonNullable<ResourceAccess['queues']>[string]> }
  | { kind: 'stateMachine'; resource: StateMachineResource; access: NonNullable<NonNullable<ResourceAccess['stateMachines']>[string]> };

/**
 * The resource rows `access` names, with what it asks of each. A name the table lacks is an error
 * naming the row: a typo in `access` must fail the synth and the local start, not a request.
 */
export function accessedResources(access: ResourceAccess | undefined, resources: readonly ResourceDefinition[], rowLabel: string): NamedAccess[] {
  if (!access) return [];
  const named = <Kind extends ResourceDefinition['kind']>(kind: Kind, name: string): Extract<ResourceDefinition, { kind: Kind }> => {
    const row = resourcesOfKind(resources, kind).find((resource) => resource.name === name);
    if (!row) throw new Error(`${rowLabel} names the ${kind} ${name}, which the resource table (src/manifest/resources.ts) lacks.`);
    return row;
  };
  const accessed: NamedAccess[] = [];
  if (access.recordsTable) accessed.push({ kind: 'table', resource: named('table', 'recordsTable'), access: access.recordsTable });
  if (access.filesBucket) accessed.push({ kind: 'bucket', resource: named('bucket', 'filesBucket'), access: access.filesBucket });
  if (access.signingKey) accessed.push({ kind: 'key', resource: named('key', 'signingKey'), access: access.signingKey });
  for (const [name, queueAccess] of Object.entries(access.queues ?? {})) {
    if (queueAccess) accessed.push({ kind: 'queue', resource: named('queue', name), access: queueAccess });
  }
  for (const [name, machineAccess] of Object.entries(access.stateMachines ?? {})) {
    if (machineAccess) accessed.push({ kind: 'stateMachine', resource: named('stateMachine', name), access: machineAccess });
  }
  return accessed;
}
