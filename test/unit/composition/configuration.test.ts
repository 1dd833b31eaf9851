import { describe, expect, it } from 'vitest';
import { limitedTo, MissingConfigurationError, readConfiguration } from '../../../src/composition/configuration.ts';
import { resources } from '../../../src/manifest/resources.ts';
import { routes } from '../../../src/manifest/routes.ts';
import { triggers } from '../../../src/manifest/triggers.ts';
import { accessedResources } from '../../../src/platform/resource-table.ts';
import { effectiveAccess } from '../../../src/platform/trigger-table.ts';

// The composition root's configuration: one typed object read from the environment, whose resources
// are the variables the resource table names, and which a row's access narrows.

const everyResource = {
  PAPERFLOW_TABLE_NAME: 'records',
  PAPERFLOW_BUCKET_NAME: 'files',
  PAPERFLOW_DELIVERY_QUEUE_URL: 'http://127.0.0.1:9/000000000000/deliveries',
  PAPERFLOW_EXTRACTION_STATE_MACHINE_ARN: 'arn:aws:states:eu-central-1:000000000000:stateMachine:extraction',
  PAPERFLOW_WORKFLOW_RUN_STATE_MACHINE_ARN: 'arn:aws:states:eu-central-1:000000000000:stateMachine:run',
  PAPERFLOW_SIGNING_KEY_ID: 'arn:aws:kms:eu-central-1:000000000000:key/signing',
};

describe('readConfiguration', () => {
  it('names every resource by its row\'s variable, and gives settings their defaults', () => {
    const configuration = readConfiguration(everyResource);

    expect(configuration.resources.recordsTableName()).toBe('records');
    expect(configuration.resources.filesBucketName()).toBe('files');
    expect(configuration.resources.queueUrl('webhookDelivery')).toBe(everyResource.PAPERFLOW_DELIVERY_QUEUE_URL);
    expect(configuration.resources.stateMachineArn('workflowRun')).toBe(everyResource.PAPERFLOW_WORKFLOW_RUN_STATE_MACHINE_ARN);
    expect(configuration.resources.signingKey()).toEqual({ kmsKeyId: everyResource.PAPERFLOW_SIGNING_KEY_ID });
    expect(configuration.settings).toEqual({
      eventOutboxGraceMs: 30_000,
      heldReleaseGraceMs: 60_000,
      stuckExtractionAfterMs: 1_200_000,
      lostWorkflowRunAfterMs: 300_000,
      documentDownloadTimeoutMs: 60_000,
      ocrIdleTimeoutMs: 60_000,
      allowPrivateUrls: false,
      webFunctionFirstRetryDelayMs: 500,
      contentUrlLifetimeSeconds: 900,
      uploadUrlLifetimeSeconds: 900,
      webhookTimeoutMs: 10_000,
      webhookMaxConcurrentPosts: 100,
      webhookRetryDelaysSeconds: [0, 60, 120, 240, 480, 960],
    });
  });

  it('says which variable is missing when a resource is asked for and not set', () => {
    const configuration = readConfiguration({ PAPERFLOW_TABLE_NAME: 'records' });

    expect(() => configuration.resources.queueUrl('webhookDelivery')).toThrow(MissingConfigurationError);
    expect(() => configuration.resources.queueUrl('webhookDelivery')).toThrow(/^PAPERFLOW_DELIVERY_QUEUE_URL is not set/);
    expect(() => configuration.resources.signingKey()).toThrow(/PAPERFLOW_SIGNING_KEY_ID nor PAPERFLOW_SIGNING_KEY_FILE is set/);
  });

  it('refuses a variable set but empty, naming it', () => {
    expect(() => readConfiguration({ ...everyResource, PAPERFLOW_BUCKET_NAME: '' })).toThrow(/PAPERFLOW_BUCKET_NAME is set but empty/);
  });

  it('reads positive seconds and falls back on anything else', () => {
    const configuration = readConfiguration({ PAPERFLOW_EVENT_OUTBOX_GRACE_SECONDS: '2.5', PAPERFLOW_HELD_RELEASE_GRACE_SECONDS: '-1', PAPERFLOW_OCR_IDLE_SECONDS: 'soon' });

    expect(configuration.settings.eventOutboxGraceMs).toBe(2500);
    expect(configuration.settings.heldReleaseGraceMs).toBe(60_000);
    expect(configuration.settings.ocrIdleTimeoutMs).toBe(60_000);
  });

  it('reads the settings the domain objects are given, each by its own rule', () => {
    const configuration = readConfiguration({
      PAPERFLOW_ALLOW_PRIVATE_URLS: 'true',
      PAPERFLOW_WEB_FUNCTION_RETRY_DELAY_MS: '10',
      PAPERFLOW_CONTENT_URL_TTL_SECONDS: '2',
      PAPERFLOW_UPLOAD_URL_TTL_SECONDS: '604801',
      PAPERFLOW_WEBHOOK_TIMEOUT_SECONDS: '0.5',
      PAPERFLOW_WEBHOOK_MAX_CONCURRENT_POSTS: '25',
      PAPERFLOW_WEBHOOK_RETRY_DELAYS: '0,1,1,1,1,1',
    });

    expect(configuration.settings).toMatchObject({
      allowPrivateUrls: true,
      webFunctionFirstRetryDelayMs: 10,
      contentUrlLifetimeSeconds: 2,
      uploadUrlLifetimeSeconds: 900,
      webhookTimeoutMs: 500,
      webhookMaxConcurrentPosts: 25,
      webhookRetryDelaysSeconds: [0, 1, 1, 1, 1, 1],
    });
    expect(readConfiguration({ PAPERFLOW_ALLOW_PRIVATE_URLS: 'yes', PAPERFLOW_WEB_FUNCTION_RETRY_DELAY_MS: '900' }).settings).toMatchObject({
      allowPrivateUrls: false,
      webFunctionFirstRetryDelayMs: 500,
    });
  });

  it.each([
    ['PAPERFLOW_WEBHOOK_TIMEOUT_SECONDS', '0', /PAPERFLOW_WEBHOOK_TIMEOUT_SECONDS must be a positive number/],
    ['PAPERFLOW_WEBHOOK_MAX_CONCURRENT_POSTS', '2.5', /PAPERFLOW_WEBHOOK_MAX_CONCURRENT_POSTS must be a positive whole number/],
    ['PAPERFLOW_WEBHOOK_RETRY_DELAYS', '1,2', /PAPERFLOW_WEBHOOK_RETRY_DELAYS must list 6 delays/],
  ])('refuses a malformed %s, naming it', (variable, raw, message) => {
    expect(() => readConfiguration({ [variable]: raw })).toThrow(MissingConfigurationError);
    expect(() => readConfiguration({ [variable]: raw })).toThrow(message);
  });
});

describe('limitedTo a row', () => {
  it('answers what the row names and refuses the rest, naming the variable', () => {
    const limited = limitedTo(readConfiguration(everyResource), { recordsTable: 'read', queues: { webhookDelivery: 'send' } });

    expect(limited.resources.recordsTableName()).toBe('records');
    expect(limited.resources.queueUrl('webhookDelivery')).toBe(everyResource.PAPERFLOW_DELIVERY_QUEUE_URL);
    expect(() => limited.resources.filesBucketName()).toThrow(/^PAPERFLOW_BUCKET_NAME is not set: this function's row does not name the bucket filesBucket/);
    expect(() => limited.resources.stateMachineArn('extraction')).toThrow(/PAPERFLOW_EXTRACTION_STATE_MACHINE_ARN/);
    expect(() => limited.resources.signingKey()).toThrow(MissingConfigurationError);
  });

  it('keeps the local key file for a row that names the signing key, and only for it', () => {
    const local = readConfiguration({ PAPERFLOW_SIGNING_KEY_FILE: '/data/signing-secrets.key' });

    expect(limitedTo(local, { signingKey: 'decrypt' }).resources.signingKey()).toEqual({ localKeyFile: '/data/signing-secrets.key' });
    expect(() => limitedTo(local, { recordsTable: 'read' }).resources.signingKey()).toThrow(MissingConfigurationError);
  });
});

describe('the manifest rows', () => {
  it('name only resources the resource table has', () => {
    for (const route of routes) expect(() => accessedResources(route.access, resources, route.operationId)).not.toThrow();
    for (const trigger of triggers) expect(() => accessedResources(effectiveAccess(trigger), resources, trigger.name)).not.toThrow();
  });

  it('a name the table lacks is an error naming the row', () => {
    expect(() => accessedResources({ queues: { auditTrail: 'send' } }, resources, 'someRow')).toThrow(/^someRow names the queue auditTrail, which the resource table/);
  });
});
