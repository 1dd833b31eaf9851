import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, UpdateCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { batchGet, batchWrite } from '../../infrastructure/dynamodb-batches.ts';
import { queryAllItems, queryPages } from '../../infrastructure/dynamodb-queries.ts';
import { filesBucket } from '../../infrastructure/resource-definitions.ts';
import type { ForEachItems, NewRun, RunListQuery, RunNeedingAttention, RunStore, StepOutcome, StoredRun, StoredStep, TerminalState } from '../run-store.ts';
import { storedDefinitionSchema } from './stored-definition.ts';
import { runErrorCodes, runStatuses, stepStatuses, type RunRecord, type RunStatus, type StepRecord } from '../workflow-run.ts';

/*
 * Key layout of workflow runs in the records table, all in the workspace's partition:
 *
 * Run     pk WS#<ws>  sk RUN#<run_id>                 the record, its definition snapshot and input
 * Step    pk WS#<ws>  sk RUN#<run_id>#STEP#<nnnn>     one per step, numbered in definition order
 *
 * so that one Query (begins_with RUN#<run_id>) reads a run with its steps. Top-level runs project
 * into the generic indexes (nested runs do not: they are listed by their parent's step):
 *   gsi1  WS#<ws>#RUN                createdAt#id        all runs by createdAt (from/to in the key)
 *   gsi2  WS#<ws>#RUN#STATUS#<s>     createdAt#id        one status by createdAt
 *   gsi3  WS#<ws>#RUN#WF#<wf>        createdAt#id        one workflow by createdAt
 *   gsi4  WS#<ws>#RUN                updatedAt#id        all runs by updatedAt
 *   gsi5  WS#<ws>#RUN                (completedAt|~)#id  all runs by completedAt, in flight last
 * and every run, nested too, sits in the sparse attention index while it needs the sweeper's eye
 * (in flight, or terminal with its event or parent notification not yet done):
 *   gsi6  RUN#ATTENTION              updatedAt#id
 * Large JSON values (input, outputs, for_each items, the definition) go to the files bucket under
 * `workflow-runs/`, the item keeping the object key.
 */

const workspacePartition = (workspaceId: string) => `WS#${workspaceId}`;
const runSortKey = (runId: string) => `RUN#${runId}`;
const stepSortKey = (runId: string, index: number) => `RUN#${runId}#STEP#${String(index).padStart(4, '0')}`;
const runKey = (workspaceId: string, runId: string) => ({ pk: workspacePartition(workspaceId), sk: runSortKey(runId) });
const stepKey = (workspaceId: string, runId: string, index: number) => ({ pk: workspacePartition(workspaceId), sk: stepSortKey(runId, index) });
export const runListPartition = (workspaceId: string) => `WS#${workspaceId}#RUN`;
export const runStatusPartition = (workspaceId: string, status: RunStatus) => `WS#${workspaceId}#RUN#STATUS#${status}`;
export const runWorkflowPartition = (workspaceId: string, workflowId: string) => `WS#${workspaceId}#RUN#WF#${workflowId}`;
const attentionPartition = 'RUN#ATTENTION';
/** Sorts after every timestamp: runs in flight come last when sorted by completedAt. */
const notCompleted = '~';

/** Values up to this size stay in their item; larger ones go to S3 (an item holds at most 400 KB). */
export const inlineValueLimitBytes = 32 * 1024;

/** Where large JSON values of a run live (the files bucket; one AWS implementation, built in src/composition/workflow-reads.ts). */
export interface RunValueObjects {
  put(objectKey: string, body: string): Promise<void>;
  get(objectKey: string): Promise<string>;
}

/** Runs and their steps in the records table; idempotent transitions that never move backwards. */
export class DynamoDbRunStore implements RunStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
    private readonly objects: RunValueObjects,
    private readonly now: () => Date = () => new Date(),
    private readonly inlineLimitBytes = inlineValueLimitBytes,
  ) {}

  /** Steps first, then the run: a run that exists always has its steps. */
  async create(run: NewRun, steps: StepRecord[]): Promise<void> {
    const { record } = run;
    const stepItems = steps.map((step) => ({ PutRequest: { Item: { ...stepKey(record.workspaceId, record.id, step.index), ...step } } }));
    await batchWrite(this.client, this.tableName, stepItems);
    const item: Record<string, unknown> = {
      ...runKey(record.workspaceId, record.id),
      ...record,
      ...(await this.storedValue(record, 'definition', run.definition)),
      ...(await this.storedValue(record, 'body', run.body)),
      ...(run.parentTaskToken ? { parentTaskToken: run.parentTaskToken } : {}),
      ...indexAttributes(record),
      gsi6pk: attentionPartition,
      gsi6sk: `${record.updatedAt}#${record.id}`,
    };
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
  }

  /** Creates a nested run unless it exists (a retried start); returns whether this call created it. */
  async createIfAbsent(run: NewRun, steps: StepRecord[]): Promise<boolean> {
    try {
      await this.create(run, steps);
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /** The run with its steps (one Query), or undefined when the workspace has no such run. */
  async get(workspaceId: string, runId: string): Promise<{ run: StoredRun; steps: StoredStep[] } | undefined> {
    const items = await queryAllItems(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': workspacePartition(workspaceId), ':prefix': runSortKey(runId) },
      ConsistentRead: true,
    });
    const runItem = items.find((item) => item.sk === runSortKey(runId));
    if (!runItem) return undefined;
    const run = await this.runOf(runItem);
    const steps = await Promise.all(items.filter((item) => item !== runItem).map((item) => this.stepOf(item)));
    return { run, steps: steps.sort((left, right) => left.index - right.index) };
  }

  /** Run records by id, in the order asked, without steps or large values; missing ones left out. */
  async getRecords(workspaceId: string, runIds: readonly string[]): Promise<RunRecord[]> {
    const items = await batchGet(this.client, this.tableName, runIds.map((runId) => runKey(workspaceId, runId)));
    const records = items.map((item) => recordOf(runItemSchema.parse(item)));
    const byId = new Map(records.map((record) => [record.id, record]));
    return runIds.flatMap((runId) => (byId.has(runId) ? [byId.get(runId)!] : []));
  }

  /** First start of the execution; later calls keep the first time. */
  async markStarted(workspaceId: string, runId: string): Promise<void> {
    await this.updateIgnoringCondition({
      Key: runKey(workspaceId, runId),
      UpdateExpression: 'SET startedAt = if_not_exists(startedAt, :now)',
      ConditionExpression: '#status = :processing',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':now': this.now().toISOString(), ':processing': 'PROCESSING' },
    });
  }

  /** Progress only moves forward, and only while the run is in flight. */
  async recordProgress(workspaceId: string, runId: string, stepsCompleted: number): Promise<void> {
    const now = this.now().toISOString();
    await this.updateIgnoringCondition({
      Key: runKey(workspaceId, runId),
      UpdateExpression: 'SET stepsCompleted = :completed, updatedAt = :now, gsi4sk = :updated, gsi6sk = :updated',
      ConditionExpression: '#status = :processing AND stepsCompleted < :completed',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':completed': stepsCompleted, ':now': now, ':updated': `${now}#${runId}`, ':processing': 'PROCESSING' },
    });
  }

  /** QUEUED → PROCESSING (again PROCESSING on a retried plan keeps the first startedAt). */
  async markStepProcessing(workspaceId: string, step: Pick<StepRecord, 'runId' | 'index'>, forEach?: ForEachItems): Promise<boolean> {
    return this.updateIgnoringCondition({
      Key: stepKey(workspaceId, step.runId, step.index),
      UpdateExpression: `SET #status = :processing, startedAt = if_not_exists(startedAt, :now)${forEach ? ', nestedRunCount = :count' : ''}`,
      ConditionExpression: '#status IN (:queued, :processing)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':processing': 'PROCESSING',
        ':queued': 'QUEUED',
        ':now': this.now().toISOString(),
        ...(forEach ? { ':count': forEach.items.length } : {}),
      },
    }).then(async (updated) => {
      if (updated && forEach) await this.storeForEach(workspaceId, step, forEach);
      return updated;
    });
  }

  /**
   * A step's terminal state, written once: QUEUED or PROCESSING to COMPLETED or FAILED, QUEUED to
   * SKIPPED. Returns false when the step had already ended (a retried task): nothing changes then.
   */
  async settleStep(workspaceId: string, step: Pick<StepRecord, 'runId' | 'index' | 'stepId'>, outcome: StepOutcome): Promise<boolean> {
    const now = this.now().toISOString();
    const names: Record<string, string> = { '#status': 'status' };
    const values: Record<string, unknown> = { ':status': outcome.status, ':now': now, ':queued': 'QUEUED', ...(outcome.status === 'SKIPPED' ? {} : { ':processing': 'PROCESSING' }) };
    const sets = ['#status = :status', 'completedAt = :now'];
    if (outcome.message !== undefined) {
      sets.push('message = :message');
      values[':message'] = outcome.message;
    }
    if (outcome.status === 'COMPLETED' && outcome.startedAt !== undefined) {
      sets.push('startedAt = if_not_exists(startedAt, :startedAt)');
      values[':startedAt'] = outcome.startedAt;
    }
    if (outcome.status === 'FAILED') {
      sets.push('failureCode = :code');
      values[':code'] = outcome.failureCode;
    }
    if (outcome.status !== 'SKIPPED' && outcome.output !== undefined) {
      const stored = await this.storedValue({ workspaceId, id: step.runId }, 'output', outcome.output, step.stepId);
      for (const [attribute, value] of Object.entries(stored)) {
        sets.push(`${attribute} = :${attribute}`);
        values[`:${attribute}`] = value;
      }
    }
    return this.updateIgnoringCondition({
      Key: stepKey(workspaceId, step.runId, step.index),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: outcome.status === 'SKIPPED' ? '#status = :queued' : '#status IN (:queued, :processing)',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    });
  }

  /**
   * The run's terminal state, written once (conditional on PROCESSING). Returns false when the run had
   * already ended: the first terminal state stands (a close racing the last step, a retried task).
   */
  async settleRun(workspaceId: string, run: Pick<RunRecord, 'id' | 'createdAt' | 'parent'>, terminal: TerminalState): Promise<boolean> {
    const now = this.now();
    const completedAt = now.toISOString();
    const durationMs = Math.max(0, now.getTime() - Date.parse(run.createdAt));
    const topLevel = !run.parent;
    return this.updateIgnoringCondition({
      Key: runKey(workspaceId, run.id),
      UpdateExpression: [
        'SET #status = :status, completedAt = :now, updatedAt = :now, durationMs = :duration, computedDurationMs = :computed',
        'stepsCompleted = :completed, gsi4sk = :updated, gsi5sk = :completedKey, gsi6sk = :updated',
        ...(topLevel ? ['gsi2pk = :statusPartition'] : []),
        ...(terminal.error ? ['#error = :error'] : []),
      ].join(', '),
      ConditionExpression: '#status = :processing',
      ExpressionAttributeNames: { '#status': 'status', ...(terminal.error ? { '#error': 'error' } : {}) },
      ExpressionAttributeValues: {
        ':status': terminal.status,
        ':now': completedAt,
        ':duration': durationMs,
        ':computed': terminal.computedDurationMs,
        ':completed': terminal.stepsCompleted,
        ':updated': `${completedAt}#${run.id}`,
        ':completedKey': `${completedAt}#${run.id}`,
        ':processing': 'PROCESSING',
        ...(topLevel ? { ':statusPartition': runStatusPartition(workspaceId, terminal.status) } : {}),
        ...(terminal.error ? { ':error': terminal.error } : {}),
      },
    });
  }

  /** Event recorded and parent told: the run leaves the attention index. */
  async markSettled(workspaceId: string, runId: string): Promise<void> {
    await this.updateIgnoringCondition({
      Key: runKey(workspaceId, runId),
      UpdateExpression: 'SET settledAt = :now REMOVE gsi6pk, gsi6sk',
      ConditionExpression: '#status <> :processing',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':now': this.now().toISOString(), ':processing': 'PROCESSING' },
    });
  }

  /**
   * Redrive: an ended run back in flight, as the run's `redriveCount`-th execution. Written once per
   * redrive: conditional on one of `from` and on the count it read, so of two redrives racing one
   * wins. The terminal fields go, the attention index takes the run again (the sweeper settles it
   * should its new execution never start), a top-level run moves to the PROCESSING list.
   */
  async reopenRun(
    workspaceId: string,
    run: Pick<RunRecord, 'id' | 'parent' | 'redriveCount'>,
    reopening: { from: readonly RunStatus[]; stepsCompleted: number; parentGeneration?: number },
  ): Promise<{ redriveCount: number; redrivenAt: string } | undefined> {
    const redrivenAt = this.now().toISOString();
    const redriveCount = (run.redriveCount ?? 0) + 1;
    const values: Record<string, unknown> = {
      ':processing': 'PROCESSING',
      ':now': redrivenAt,
      ':count': redriveCount,
      ':completed': reopening.stepsCompleted,
      ':updated': `${redrivenAt}#${run.id}`,
      ':notCompleted': `${notCompleted}#${run.id}`,
      ':attention': attentionPartition,
      ...Object.fromEntries(reopening.from.map((status, index) => [`:from${index}`, status])),
    };
    const sets = [
      '#status = :processing, updatedAt = :now, redrivenAt = :now, redriveCount = :count, stepsCompleted = :completed',
      'gsi4sk = :updated, gsi5sk = :notCompleted, gsi6pk = :attention, gsi6sk = :updated',
    ];
    if (!run.parent) {
      sets.push('gsi2pk = :statusPartition');
      values[':statusPartition'] = runStatusPartition(workspaceId, 'PROCESSING');
    }
    if (reopening.parentGeneration !== undefined) {
      sets.push('parentGeneration = :generation');
      values[':generation'] = reopening.parentGeneration;
    }
    let condition = `#status IN (${reopening.from.map((_, index) => `:from${index}`).join(', ')}) AND `;
    if (run.redriveCount === undefined) condition += 'attribute_not_exists(redriveCount)';
    else {
      condition += 'redriveCount = :previous';
      values[':previous'] = run.redriveCount;
    }
    const reopened = await this.updateIgnoringCondition({
      Key: runKey(workspaceId, run.id),
      UpdateExpression: `SET ${sets.join(', ')} REMOVE completedAt, #error, durationMs, computedDurationMs, settledAt`,
      ConditionExpression: condition,
      ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
      ExpressionAttributeValues: values,
    });
    return reopened ? { redriveCount, redrivenAt } : undefined;
  }

  /**
   * Redrive: a step that did not complete is QUEUED again, without the outcome of its last attempt.
   * A for_each step keeps its start and its evaluated items: its nested runs' ids derive from them,
   * so the nested runs that completed are found again instead of started again.
   */
  async requeueStep(workspaceId: string, step: Pick<StoredStep, 'runId' | 'index' | 'type' | 'nestedRunCount'>): Promise<boolean> {
    const keepsNestedRuns = step.type === 'for_each' && step.nestedRunCount !== undefined;
    const removed = ['message', 'failureCode', 'completedAt', 'outputJson', 'outputObjectKey', ...(keepsNestedRuns ? [] : ['startedAt'])];
    return this.updateIgnoringCondition({
      Key: stepKey(workspaceId, step.runId, step.index),
      UpdateExpression: `SET #status = :queued REMOVE ${removed.join(', ')}`,
      ConditionExpression: '#status IN (:failed, :skipped, :processing)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':queued': 'QUEUED', ':failed': 'FAILED', ':skipped': 'SKIPPED', ':processing': 'PROCESSING' },
    });
  }

  /** A retried nested-run start waits with a new token: the child must resume that one. */
  async replaceParentTaskToken(workspaceId: string, runId: string, taskToken: string): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: runKey(workspaceId, runId),
        UpdateExpression: 'SET parentTaskToken = :token',
        ExpressionAttributeValues: { ':token': taskToken },
      }),
    );
  }

  /** Runs the sweeper looks at: in flight, or ended with their event or parent notification pending. */
  async *needingAttention(): AsyncGenerator<RunNeedingAttention> {
    const pages = queryPages(this.client, {
      TableName: this.tableName,
      IndexName: 'gsi6',
      KeyConditionExpression: 'gsi6pk = :pk',
      ExpressionAttributeValues: { ':pk': attentionPartition },
    });
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        const { workspaceId, id, status, updatedAt, redriveCount } = attentionItemSchema.parse(item);
        yield { workspaceId, runId: id, status, updatedAt, redriveCount: redriveCount ?? 0 };
      }
    }
  }

  /** A page of top-level runs by one index Query, with the exact total from a COUNT Query of the same range. */
  async list(workspaceId: string, query: RunListQuery): Promise<{ records: RunRecord[]; totalItems: number }> {
    const base = listQueryOf(this.tableName, workspaceId, query);
    const totalItems = await this.count(base);
    const offset = query.page * query.size;
    if (offset >= totalItems) return { records: [], totalItems };
    const records: RunRecord[] = [];
    let seen = 0;
    for await (const page of queryPages(this.client, base)) {
      for (const item of page.Items ?? []) {
        seen += 1;
        if (seen > offset && records.length < query.size) records.push(recordOf(runItemSchema.parse(item)));
      }
      if (records.length >= query.size) break;
    }
    return { records, totalItems };
  }

  private async count(base: QueryCommandInput): Promise<number> {
    let total = 0;
    for await (const page of queryPages(this.client, { ...base, Select: 'COUNT' })) total += page.Count ?? 0;
    return total;
  }

  private async storeForEach(workspaceId: string, step: Pick<StepRecord, 'runId' | 'index'>, forEach: ForEachItems): Promise<void> {
    const { items, ...settings } = forEach;
    const stored = await this.storedValue({ workspaceId, id: step.runId }, 'forEachItems', items, `step-${step.index}-items`);
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: stepKey(workspaceId, step.runId, step.index),
        UpdateExpression: `SET forEachSettings = :settings, ${Object.keys(stored).map((attribute) => `${attribute} = :${attribute}`).join(', ')}`,
        ExpressionAttributeValues: { ':settings': settings, ...Object.fromEntries(Object.entries(stored).map(([attribute, value]) => [`:${attribute}`, value])) },
      }),
    );
  }

  /** `{<name>Json}` inline, or `{<name>ObjectKey}` with the JSON in S3 when it is large. */
  private async storedValue(run: { workspaceId: string; id: string }, name: string, value: unknown, objectName: string = name): Promise<Record<string, string>> {
    const text = JSON.stringify(value ?? null);
    if (Buffer.byteLength(text) <= this.inlineLimitBytes) return { [`${name}Json`]: text };
    const objectKey = `${filesBucket.workflowRunPrefix}${run.workspaceId}/${run.id}/${objectName}.json`;
    await this.objects.put(objectKey, text);
    return { [`${name}ObjectKey`]: objectKey };
  }

  private async valueOf(stored: StoredValue): Promise<unknown> {
    if (stored.json !== undefined) return JSON.parse(stored.json) as unknown;
    if (stored.objectKey !== undefined) return JSON.parse(await this.objects.get(stored.objectKey)) as unknown;
    return undefined;
  }

  private async runOf(item: Record<string, unknown>): Promise<StoredRun> {
    const parsed = runItemSchema.parse(item);
    return {
      ...recordOf(parsed),
      // A snapshot that no longer reads (a definition stored by an older version) leaves the run
      // readable and settleable; the engine refuses to continue it.
      definition: await this.valueOf({ json: parsed.definitionJson, objectKey: parsed.definitionObjectKey })
        .then((value) => storedDefinitionSchema.parse(value))
        .catch(() => undefined),
      body: await this.valueOf({ json: parsed.bodyJson, objectKey: parsed.bodyObjectKey }),
      ...(parsed.parentTaskToken !== undefined ? { parentTaskToken: parsed.parentTaskToken } : {}),
      ...(parsed.settledAt !== undefined ? { settledAt: parsed.settledAt } : {}),
    };
  }

  private async stepOf(item: Record<string, unknown>): Promise<StoredStep> {
    const { outputJson, outputObjectKey, forEachItemsJson, forEachItemsObjectKey, forEachSettings, ...record } = stepItemSchema.parse(item);
    const output = await this.valueOf({ json: outputJson, objectKey: outputObjectKey });
    const items = forEachSettings ? await this.valueOf({ json: forEachItemsJson, objectKey: forEachItemsObjectKey }) : undefined;
    return {
      ...withoutUndefined(record),
      ...(output !== undefined ? { output } : {}),
      ...(forEachSettings ? { forEach: { ...forEachSettings, items: Array.isArray(items) ? items : [] } } : {}),
    };
  }

  /** An update whose condition failing means "already done": returns whether it applied. */
  private async updateIgnoringCondition(input: Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName'>): Promise<boolean> {
    try {
      await this.client.send(new UpdateCommand({ TableName: this.tableName, ...input }));
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}

/** The index attributes of a top-level run (nested runs are not listed on their own). */
function indexAttributes(record: RunRecord): Record<string, string> {
  if (record.parent) return {};
  const created = `${record.createdAt}#${record.id}`;
  return {
    gsi1pk: runListPartition(record.workspaceId),
    gsi1sk: created,
    gsi2pk: runStatusPartition(record.workspaceId, record.status),
    gsi2sk: created,
    gsi3pk: runWorkflowPartition(record.workspaceId, record.workflow.id),
    gsi3sk: created,
    gsi4pk: runListPartition(record.workspaceId),
    gsi4sk: `${record.updatedAt}#${record.id}`,
    gsi5pk: runListPartition(record.workspaceId),
    gsi5sk: `${record.completedAt ?? notCompleted}#${record.id}`,
  };
}

// Sorts past "#<id>" for any id, so an inclusive `to` bound keeps every run created at that instant.
const upperBoundSuffix = '#~';

/**
 * The Query answering a list request: by createdAt, the most selective partition (status, then
 * workflow) with from/to in the key; by updatedAt or completedAt, the workspace's index for that
 * order. Whatever the key does not narrow is a filter, which the COUNT Query applies the same way.
 */
export function listQueryOf(tableName: string, workspaceId: string, query: RunListQuery): QueryCommandInput {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const filters: string[] = [];
  let index: string;
  let partition: string;
  if (query.sortBy === 'createdAt') {
    if (query.status) [index, partition] = ['gsi2', runStatusPartition(workspaceId, query.status)];
    else if (query.workflowId) [index, partition] = ['gsi3', runWorkflowPartition(workspaceId, query.workflowId)];
    else [index, partition] = ['gsi1', runListPartition(workspaceId)];
  } else {
    [index, partition] = [query.sortBy === 'updatedAt' ? 'gsi4' : 'gsi5', runListPartition(workspaceId)];
  }
  names['#pk'] = `${index}pk`;
  values[':pk'] = partition;
  let keyCondition = '#pk = :pk';
  if (query.sortBy === 'createdAt' && (query.from || query.to)) {
    names['#sk'] = `${index}sk`;
    if (query.from && query.to) keyCondition += ' AND #sk BETWEEN :from AND :to';
    else if (query.from) keyCondition += ' AND #sk >= :from';
    else keyCondition += ' AND #sk <= :to';
    if (query.from) values[':from'] = query.from;
    if (query.to) values[':to'] = `${query.to}${upperBoundSuffix}`;
  } else {
    if (query.from) {
      filters.push('createdAt >= :from');
      values[':from'] = query.from;
    }
    if (query.to) {
      filters.push('createdAt <= :to');
      values[':to'] = query.to;
    }
  }
  if (query.status && index !== 'gsi2') {
    names['#status'] = 'status';
    filters.push('#status = :status');
    values[':status'] = query.status;
  }
  if (query.workflowId && index !== 'gsi3') {
    names['#workflow'] = 'workflow';
    filters.push('#workflow.#workflowId = :workflowId');
    names['#workflowId'] = 'id';
    values[':workflowId'] = query.workflowId;
  }
  return {
    TableName: tableName,
    IndexName: index,
    KeyConditionExpression: keyCondition,
    ...(filters.length > 0 ? { FilterExpression: filters.join(' AND ') } : {}),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ScanIndexForward: query.sort === 'asc',
  };
}

interface StoredValue {
  json: string | undefined;
  objectKey: string | undefined;
}

const optionalString = z.optional(z.string());
const optionalNumber = z.optional(z.number());

// The items as this store writes them; what an item holds beyond these (keys, index attributes) is
// dropped by the parse.
const runItemSchema = z.object({
  id: z.string(),
  workspaceId: z.string(),
  workflow: z.object({ id: z.string(), name: z.string(), version: z.number() }),
  status: z.enum(runStatuses),
  createdAt: z.string(),
  updatedAt: z.string(),
  startedAt: optionalString,
  completedAt: optionalString,
  error: z.optional(z.object({ code: z.enum(runErrorCodes), message: z.string() })),
  stepsCompleted: z.number(),
  stepsTotal: z.number(),
  durationMs: optionalNumber,
  computedDurationMs: optionalNumber,
  parent: z.optional(z.object({ runId: z.string(), stepId: z.string(), index: z.number() })),
  redriveCount: optionalNumber,
  redrivenAt: optionalString,
  parentGeneration: optionalNumber,
  definitionJson: optionalString,
  definitionObjectKey: optionalString,
  bodyJson: optionalString,
  bodyObjectKey: optionalString,
  parentTaskToken: optionalString,
  settledAt: optionalString,
});

const stepItemSchema = z.object({
  runId: z.string(),
  stepId: z.string(),
  index: z.number(),
  name: z.string(),
  type: z.string(),
  status: z.enum(stepStatuses),
  message: optionalString,
  failureCode: z.optional(z.enum(runErrorCodes)),
  startedAt: optionalString,
  completedAt: optionalString,
  nestedRunCount: optionalNumber,
  outputJson: optionalString,
  outputObjectKey: optionalString,
  forEachSettings: z.optional(z.object({ workflowId: z.string(), maxConcurrency: z.number() })),
  forEachItemsJson: optionalString,
  forEachItemsObjectKey: optionalString,
});

const attentionItemSchema = z.object({ workspaceId: z.string(), id: z.string(), status: z.enum(runStatuses), updatedAt: z.string(), redriveCount: optionalNumber });

/** The parsed attributes that are set: an absent optional attribute stays absent in the record. */
function withoutUndefined<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, attribute]) => attribute !== undefined)) as T;
}

function recordOf(item: z.infer<typeof runItemSchema>): RunRecord {
  const { definitionJson, definitionObjectKey, bodyJson, bodyObjectKey, parentTaskToken, settledAt, ...record } = item;
  return withoutUndefined(record);
}

/** Keys of a run's items, for tests and tools that reach the table directly. */
export const runItemKeys = { runKey, stepKey };

