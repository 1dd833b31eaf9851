// The shape of the shared resources, which the code that writes into them needs too (the bucket's
// prefixes, the queue's longest delay). The resource table (src/manifest/resources.ts) makes rows of
// them for the CDK stack, the local provisioning and each function's environment.

export interface TableDefinition {
  id: string;
  partitionKey: string;
  sortKey: string;
  globalSecondaryIndexes: { indexName: string; partitionKey: string; sortKey: string }[];
  timeToLiveAttribute: string;
}

/**
 * One table for every record type (single-table design). Generic index attributes let each record
 * type project its own access patterns (workspace listings, lookups by id) without a Scan.
 */
export const recordsTable: TableDefinition = {
  id: 'Records',
  partitionKey: 'pk',
  sortKey: 'sk',
  globalSecondaryIndexes: [
    { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    { indexName: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
    { indexName: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk' },
    // Extraction lists sorted by updatedAt per status, by completedAt, and the sparse "needs attention"
    // index of the extraction sweeper (src/extractions/extraction-keys.ts).
    { indexName: 'gsi4', partitionKey: 'gsi4pk', sortKey: 'gsi4sk' },
    { indexName: 'gsi5', partitionKey: 'gsi5pk', sortKey: 'gsi5sk' },
    { indexName: 'gsi6', partitionKey: 'gsi6pk', sortKey: 'gsi6sk' },
  ],
  timeToLiveAttribute: 'expiresAt',
};

export const filesBucket = {
  id: 'Files',
  /**
   * Files are staging storage, not an archive (spec, Limits): objects under this prefix (uploads and
   * their files) expire after `stagedObjectExpirationDays`. What the service keeps for as long as its
   * record lives (large extraction outputs, large event payloads) is written under other prefixes,
   * so the staging rule never removes an object a record still points at.
   */
  stagedObjectPrefix: 'workspaces/',
  stagedObjectExpirationDays: 30,
  /** Event payloads too large for their item; kept one day past the events' own 90-day retention. */
  eventPayloadPrefix: 'events/',
  eventPayloadExpirationDays: 91,
  /** Extraction outputs too large for their item: removed with the extraction, never by age. */
  extractionOutputPrefix: 'extraction-outputs/',
  /** S3 server access logs of the bucket (deployed only; docs/deployment.md). */
  accessLogExpirationDays: 90,
  /** Workflow run values too large for their item (input, step outputs, for_each items): kept with the run. */
  workflowRunPrefix: 'workflow-runs/',
  /**
   * Browsers reach the bucket only with pre-signed URLs: a POST to upload a file larger than API
   * Gateway's 10 MB, and a GET when the review console draws a document from its contentUrl. The
   * signature is the credential, and no cookie is ever sent to the bucket, so any origin may use a URL
   * it was given (the console's origin is the CloudFront distribution's, which the bucket cannot name:
   * the functions the distribution fronts already depend on the bucket).
   */
  corsRules: [
    { allowedMethods: ['GET', 'HEAD'], allowedOrigins: ['*'], allowedHeaders: [] as string[], exposedHeaders: ['Content-Length', 'Content-Type'], maxAgeSeconds: 3000 },
    { allowedMethods: ['POST'], allowedOrigins: ['*'], allowedHeaders: ['*'], exposedHeaders: ['ETag'], maxAgeSeconds: 3000 },
  ] as const,
};

export const webhookDeliveryQueue = {
  id: 'WebhookDeliveries',
  deadLetterQueueId: 'WebhookDeliveriesDeadLetters',
  /**
   * The consumer handles a batch's records together, each POST bounded by the webhook timeout (10 s by
   * default): 60 s leaves room for the fan-out's writes and a slow downstream.
   */
  consumerTimeoutSeconds: 60,
  /**
   * Lambda requires a visibility timeout of at least the consumer's timeout and recommends six times
   * it, so a message is not handed out again while a retried invocation still holds it. Locally
   * PAPERFLOW_DELIVERY_QUEUE_VISIBILITY_TIMEOUT_SECONDS may shorten it (tests of redelivery).
   */
  visibilityTimeoutSeconds: 360,
  maxReceiveCount: 5,
  /** SQS refuses longer per-message delays; longer waits are reached in several hops. */
  maximumDelaySeconds: 900,
};
