/** What a route's function may touch; the CDK stack turns it into least-privilege grants. */
export interface ResourceAccess {
  recordsTable?: 'read' | 'readWrite';
  /** `readWriteDelete` also removes objects (deletes, refused uploads); others never delete. */
  filesBucket?: 'read' | 'readWrite' | 'readWriteDelete';
  webhookDeliveryQueue?: 'send';
  /** Starts executions of the extraction state machine (statemachines/extraction.asl.json). */
  extractionStateMachine?: 'start';
}
