import { AsyncLocalStorage } from 'node:async_hooks';
import * as z from 'zod/mini';
import { localKeyFileEnvironment } from '../infrastructure/local-file-data-keys.ts';
import { resources as resourceTable } from '../manifest/resources.ts';
import type { QueueName, ResourceAccess, StateMachineName } from '../platform/resource-access.ts';
import { accessedResources, resourcesOfKind, type ResourceDefinition } from '../platform/resource-table.ts';
import { defaultContentUrlLifetimeSeconds, defaultUploadUrlLifetimeSeconds, urlLifetimeSecondsFrom } from '../files/file-limits.ts';
import { outboundUrlPolicyFor, type OutboundUrlPolicy } from '../outbound/outbound-settings.ts';
import { parseRetryDelays } from '../webhooks/retry-schedule.ts';
import { maxConcurrentPostsFrom, webhookTimeoutMsFrom } from '../webhooks/webhook-sender.ts';
import { webFunctionFirstRetryDelayMsFrom } from '../workflows/steps/web-function-retry-delays.ts';

// The one place that reads the environment. A function's configuration is its resources (the
// variables its row's `access` names, each a row of src/manifest/resources.ts) and its settings
// (timeouts, grace periods, the outbound URL switch), parsed with zod into `PaperflowConfiguration` once per process
// deployed. The builders of src/composition/ take everything from here; domain code never reads
// process.env for a resource.
//
// Locally every handler runs in one process whose environment names every resource. The local
// invoker therefore runs each invocation inside `withConfiguration(configurationFor(row))`, a
// configuration limited to what the row names: a handler reaching for a resource its row does not
// name fails there as it would deployed, where its function lacks the variable and the grant.

/** Where a function finds its resources: only the ones its row names; asking for another throws. */
export interface ConfiguredResources {
  recordsTableName(): string;
  filesBucketName(): string;
  queueUrl(name: QueueName): string;
  stateMachineArn(name: StateMachineName): string;
  /** The KMS key of signing secrets where there is one (deployed, LocalStack), else the local key file. */
  signingKey(): { kmsKeyId: string } | { localKeyFile: string };
}

/**
 * Settings every builder may read and passes into the domain objects it builds; each has a default,
 * so an unset variable is never an error. A malformed value is ignored for some (the default applies,
 * as each always did) and an error naming the variable for the webhook settings, which refuse to
 * retry or time out on a schedule nobody asked for.
 */
export interface PaperflowSettings {
  eventOutboxGraceMs: number;
  heldReleaseGraceMs: number;
  stuckExtractionAfterMs: number;
  lostWorkflowRunAfterMs: number;
  documentDownloadTimeoutMs: number;
  ocrIdleTimeoutMs: number;
  /** PAPERFLOW_ALLOW_PRIVATE_URLS=true: outbound http and loopback allowed (local stacks and tests only). */
  allowPrivateUrls: boolean;
  /** PAPERFLOW_WEB_FUNCTION_RETRY_DELAY_MS: the first pause between web_function attempts (0-500, default 500). */
  webFunctionFirstRetryDelayMs: number;
  /** PAPERFLOW_CONTENT_URL_TTL_SECONDS (default 15 minutes). */
  contentUrlLifetimeSeconds: number;
  /** PAPERFLOW_UPLOAD_URL_TTL_SECONDS (default 15 minutes). */
  uploadUrlLifetimeSeconds: number;
  /** PAPERFLOW_WEBHOOK_TIMEOUT_SECONDS (default 10 s). */
  webhookTimeoutMs: number;
  /** PAPERFLOW_WEBHOOK_MAX_CONCURRENT_POSTS (default 100). */
  webhookMaxConcurrentPosts: number;
  /** PAPERFLOW_WEBHOOK_RETRY_DELAYS: the six delays in seconds before each automatic attempt. */
  webhookRetryDelaysSeconds: readonly number[];
}

export interface PaperflowConfiguration {
  resources: ConfiguredResources;
  settings: PaperflowSettings;
}

/** A resource a function asked for and was not given: its message names the variable. */
export class MissingConfigurationError extends Error {
  override readonly name = 'MissingConfigurationError';
}

/** Seconds from a variable: a positive number, else (unset, empty, not a number, not positive) the default. */
function seconds(fallbackSeconds: number) {
  return z.pipe(
    z.optional(z.string()),
    z.transform((raw) => {
      const configured = Number(raw);
      return (raw !== undefined && raw.trim() !== '' && Number.isFinite(configured) && configured > 0 ? configured : fallbackSeconds) * 1000;
    }),
  );
}

/** A variable parsed by the domain's own rule (`parse` throws on a malformed value): its message becomes the issue. */
function parsedBy<Value>(parse: (raw: string | undefined) => Value) {
  return z.pipe(
    z.optional(z.string()),
    z.transform((raw, context) => {
      try {
        return parse(raw);
      } catch (error) {
        context.issues.push({ code: 'custom', message: error instanceof Error ? error.message : String(error), input: raw });
        return z.NEVER;
      }
    }),
  );
}

const settingsSchema = z.object({
  PAPERFLOW_EVENT_OUTBOX_GRACE_SECONDS: seconds(30),
  PAPERFLOW_HELD_RELEASE_GRACE_SECONDS: seconds(60),
  PAPERFLOW_EXTRACTION_STUCK_AFTER_SECONDS: seconds(20 * 60),
  PAPERFLOW_WORKFLOW_RUN_LOST_AFTER_SECONDS: seconds(5 * 60),
  PAPERFLOW_DOCUMENT_DOWNLOAD_TIMEOUT_SECONDS: seconds(60),
  PAPERFLOW_OCR_IDLE_SECONDS: seconds(60),
  PAPERFLOW_ALLOW_PRIVATE_URLS: parsedBy((raw) => raw === 'true'),
  PAPERFLOW_WEB_FUNCTION_RETRY_DELAY_MS: parsedBy(webFunctionFirstRetryDelayMsFrom),
  PAPERFLOW_CONTENT_URL_TTL_SECONDS: parsedBy((raw) => urlLifetimeSecondsFrom(raw, defaultContentUrlLifetimeSeconds)),
  PAPERFLOW_UPLOAD_URL_TTL_SECONDS: parsedBy((raw) => urlLifetimeSecondsFrom(raw, defaultUploadUrlLifetimeSeconds)),
  PAPERFLOW_WEBHOOK_TIMEOUT_SECONDS: parsedBy(webhookTimeoutMsFrom),
  PAPERFLOW_WEBHOOK_MAX_CONCURRENT_POSTS: parsedBy(maxConcurrentPostsFrom),
  PAPERFLOW_WEBHOOK_RETRY_DELAYS: parsedBy(parseRetryDelays),
});

/** The variables a resource table names, each optional here: which are required depends on the row. */
function resourceVariablesSchema(table: readonly ResourceDefinition[]) {
  const variable = z.optional(z.string().check(z.minLength(1, 'is set but empty')));
  return z.object(Object.fromEntries([...table.map((row) => [row.environmentVariable, variable]), [localKeyFileEnvironment, variable]]));
}

/** The variables `readConfiguration` reads: a change to any of them (a second local stack) is read anew. */
function variablesRead(table: readonly ResourceDefinition[]): string[] {
  return [...table.map((row) => row.environmentVariable), localKeyFileEnvironment, ...Object.keys(settingsSchema.shape)];
}

/**
 * The configuration the environment describes, parsed once: a malformed value is an error naming its
 * variable, at the first use rather than deep inside a request. `table` is the resource table.
 */
export function readConfiguration(environment: NodeJS.ProcessEnv, table: readonly ResourceDefinition[] = resourceTable): PaperflowConfiguration {
  const parsedResources = resourceVariablesSchema(table).safeParse(environment);
  const parsedSettings = settingsSchema.safeParse(environment);
  const issues = [...(parsedResources.success ? [] : parsedResources.error.issues), ...(parsedSettings.success ? [] : parsedSettings.error.issues)];
  if (issues.length > 0) {
    throw new MissingConfigurationError(`Configuration: ${issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('; ')}.`);
  }
  const values = parsedResources.data as Record<string, string | undefined>;
  const settings = parsedSettings.data!;
  return {
    resources: resourcesFrom(table, (row) => values[row.environmentVariable], values[localKeyFileEnvironment]),
    settings: {
      eventOutboxGraceMs: settings.PAPERFLOW_EVENT_OUTBOX_GRACE_SECONDS,
      heldReleaseGraceMs: settings.PAPERFLOW_HELD_RELEASE_GRACE_SECONDS,
      stuckExtractionAfterMs: settings.PAPERFLOW_EXTRACTION_STUCK_AFTER_SECONDS,
      lostWorkflowRunAfterMs: settings.PAPERFLOW_WORKFLOW_RUN_LOST_AFTER_SECONDS,
      documentDownloadTimeoutMs: settings.PAPERFLOW_DOCUMENT_DOWNLOAD_TIMEOUT_SECONDS,
      ocrIdleTimeoutMs: settings.PAPERFLOW_OCR_IDLE_SECONDS,
      allowPrivateUrls: settings.PAPERFLOW_ALLOW_PRIVATE_URLS,
      webFunctionFirstRetryDelayMs: settings.PAPERFLOW_WEB_FUNCTION_RETRY_DELAY_MS,
      contentUrlLifetimeSeconds: settings.PAPERFLOW_CONTENT_URL_TTL_SECONDS,
      uploadUrlLifetimeSeconds: settings.PAPERFLOW_UPLOAD_URL_TTL_SECONDS,
      webhookTimeoutMs: settings.PAPERFLOW_WEBHOOK_TIMEOUT_SECONDS,
      webhookMaxConcurrentPosts: settings.PAPERFLOW_WEBHOOK_MAX_CONCURRENT_POSTS,
      webhookRetryDelaysSeconds: settings.PAPERFLOW_WEBHOOK_RETRY_DELAYS,
    },
  };
}

/** Resources answered from `valueOf`, each lookup failing with the variable's name when it has no value. */
function resourcesFrom(
  table: readonly ResourceDefinition[],
  valueOf: (row: ResourceDefinition) => string | undefined,
  localKeyFile: string | undefined,
): ConfiguredResources {
  const required = <Kind extends ResourceDefinition['kind']>(kind: Kind, name: string): string => {
    const row = resourcesOfKind(table, kind).find((resource) => resource.name === name);
    if (!row) throw new MissingConfigurationError(`The resource table has no ${kind} named ${name}.`);
    const value = valueOf(row);
    if (value === undefined) {
      throw new MissingConfigurationError(`${row.environmentVariable} is not set: this function's row does not name the ${kind} ${name} in its access, or the stack did not set it.`);
    }
    return value;
  };
  return {
    recordsTableName: () => required('table', 'recordsTable'),
    filesBucketName: () => required('bucket', 'filesBucket'),
    queueUrl: (name) => required('queue', name),
    stateMachineArn: (name) => required('stateMachine', name),
    signingKey: () => {
      const keyRow = resourcesOfKind(table, 'key').find((row) => row.name === 'signingKey');
      const keyId = keyRow ? valueOf(keyRow) : undefined;
      if (keyId) return { kmsKeyId: keyId };
      if (localKeyFile) return { localKeyFile };
      throw new MissingConfigurationError(
        `Neither ${keyRow?.environmentVariable ?? 'the signing key variable'} nor ${localKeyFileEnvironment} is set: this function's row does not name the signing key.`,
      );
    },
  };
}

/**
 * `configuration` limited to the resources `access` names (the row's effective access): the others
 * answer as if their variable were unset. The local invoker hands each handler this.
 */
export function limitedTo(configuration: PaperflowConfiguration, access: ResourceAccess | undefined, table: readonly ResourceDefinition[] = resourceTable): PaperflowConfiguration {
  const named = accessedResources(access, table, 'A row');
  const granted = (row: ResourceDefinition) => named.some((accessed) => accessed.resource === row);
  const full = configuration.resources;
  const valueOf = (row: ResourceDefinition): string | undefined => {
    if (!granted(row)) return undefined;
    switch (row.kind) {
      case 'table':
        return full.recordsTableName();
      case 'bucket':
        return full.filesBucketName();
      case 'queue':
        return full.queueUrl(row.name);
      case 'stateMachine':
        return full.stateMachineArn(row.name);
      case 'key': {
        const key = full.signingKey();
        return 'kmsKeyId' in key ? key.kmsKeyId : undefined;
      }
    }
  };
  const keyGranted = named.some((accessed) => accessed.kind === 'key');
  const localKeyFile = keyGranted ? localKeyFileOf(full) : undefined;
  return { resources: resourcesFrom(table, valueOf, localKeyFile), settings: configuration.settings };
}

function localKeyFileOf(resources: ConfiguredResources): string | undefined {
  try {
    const key = resources.signingKey();
    return 'localKeyFile' in key ? key.localKeyFile : undefined;
  } catch {
    return undefined;
  }
}

const invocationConfiguration = new AsyncLocalStorage<PaperflowConfiguration>();

/** Runs `work` (one local invocation) with `configuration` as what `paperflowConfiguration()` answers. */
export function withConfiguration<Result>(configuration: PaperflowConfiguration, work: () => Result): Result {
  return invocationConfiguration.run(configuration, work);
}

/** Per resource table (a test may extend the manifest's), the environment last read and what it gave. */
const environmentRead = new WeakMap<readonly ResourceDefinition[], { fingerprint: string; configuration: PaperflowConfiguration }>();

/**
 * The configuration of the running function: inside a local invocation the one its row was given;
 * otherwise (deployed, where the function's environment holds only what its row names; a test or
 * the admin CLI talking to a local stack) the process environment's, parsed once and again only
 * when one of its variables changed (a second local stack started in the same process).
 */
export function paperflowConfiguration(): PaperflowConfiguration {
  return invocationConfiguration.getStore() ?? environmentConfiguration();
}

/**
 * The configuration a row gets: the process environment's, limited to what its access names. `table`
 * is the resource table the stack was built from (a test's may have a queue more).
 */
export function configurationFor(access: ResourceAccess | undefined, table: readonly ResourceDefinition[] = resourceTable): PaperflowConfiguration {
  return limitedTo(environmentConfiguration(table), access, table);
}

/** The outbound URL policy the running function's configuration gives. */
export function configuredUrlPolicy(): OutboundUrlPolicy {
  return outboundUrlPolicyFor(paperflowConfiguration().settings.allowPrivateUrls);
}


function environmentConfiguration(table: readonly ResourceDefinition[] = resourceTable): PaperflowConfiguration {
  const fingerprint = JSON.stringify(variablesRead(table).map((name) => process.env[name] ?? null));
  const read = environmentRead.get(table);
  if (read?.fingerprint === fingerprint) return read.configuration;
  const configuration = readConfiguration(process.env, table);
  environmentRead.set(table, { fingerprint, configuration });
  return configuration;
}

/**
 * The files bucket's name, asked only when an object is touched: readers of large values reach the
 * bucket rarely, and a function whose row names no bucket fails only if it ever does.
 */
export function filesBucketNameWhenTouched(): () => string {
  const { resources } = paperflowConfiguration();
  return () => resources.filesBucketName();
}
