import { eventRecorder } from '../events/wiring.ts';
import { extractionConfigurationStore } from '../extraction-configurations/wiring.ts';
import { fileBlobStore, fileLookup, fileRecordStore } from '../files/lookup-wiring.ts';
import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { s3Client } from '../infrastructure/s3-client.ts';
import { sfnClient } from '../infrastructure/sfn-client.ts';
import { requiredEnvironment, resourceEnvironment, secondsFromEnvironment } from '../infrastructure/resource-definitions.ts';
import { outboundUrlPolicyFromEnvironment } from '../outbound/outbound-settings.ts';
import { extractionSummary, type ExtractionView } from './extraction.ts';
import { ExtractionDocuments } from './extraction-documents.ts';
import { DynamoDbExtractionStore } from './aws/dynamodb-extraction-store.ts';
import { StepFunctionsExtractionExecutions } from './aws/step-functions-extraction-executions.ts';
import type { ExtractionExecutions } from './extraction-executions.ts';
import { DynamoDbContentCorrections } from './aws/dynamodb-content-corrections.ts';
import { DynamoDbExtractionOutputs } from './aws/dynamodb-extraction-outputs.ts';
import { ExtractionOutputStore } from './extraction-output-store.ts';
import { ExtractionService, type ExtractionServiceDependencies } from './extraction-service.ts';
import { ExtractionSettlement } from './extraction-settlement.ts';

// Built from the environment the stack (deployed or local) sets; clients are shared per process.
// Nothing here may import the files upload path (DirectUploads, sniffing): every extraction API handler
// bundles this module; upload-extraction adds the upload (upload-wiring.ts), the fetch task the sniffing.

/** The records table's store; seeding and tests also reach its counters and table name. */
export function extractionStore(): DynamoDbExtractionStore {
  return new DynamoDbExtractionStore(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName));
}

export function outputStore(): ExtractionOutputStore {
  const tableName = requiredEnvironment(resourceEnvironment.recordsTableName);
  return new ExtractionOutputStore(
    new DynamoDbExtractionOutputs(dynamoDocumentClient(), tableName, s3Client(), requiredEnvironment(resourceEnvironment.filesBucketName)),
    contentCorrections(),
  );
}

/** Corrections remembered per document content (value correction; the feedback export reads them). */
export function contentCorrections(): DynamoDbContentCorrections {
  return new DynamoDbContentCorrections(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName));
}

export function extractionDocuments(): ExtractionDocuments {
  return new ExtractionDocuments(fileRecordStore(), fileBlobStore(), fileLookup());
}

export function extractionSettlement(): ExtractionSettlement {
  return new ExtractionSettlement(extractionStore(), outputStore(), eventRecorder());
}

export function extractionExecutions(): ExtractionExecutions {
  return new StepFunctionsExtractionExecutions(sfnClient(), requiredEnvironment(resourceEnvironment.extractionStateMachineArn));
}

/** Creates by fileId or url, reads, feedback, deletes; uploads need `extractionServiceWithUploads()` (upload-wiring.ts). */
export function extractionService(): ExtractionService {
  return new ExtractionService({ ...serviceDependencies(), documents: extractionDocuments() });
}

/** What every extraction service has; documents (reads of files, download links) and uploads are added by use. */
export function serviceDependencies(): ExtractionServiceDependencies {
  return {
    store: extractionStore(),
    outputs: outputStore(),
    executions: extractionExecutions(),
    settlement: extractionSettlement(),
    urlPolicy: outboundUrlPolicyFromEnvironment,
    configurationOf: async (workspaceId) => (await extractionConfigurationStore().get(workspaceId)).configuration,
  };
}

/** Extractions in flight longer than this are ended FAILED by the sweeper (default 20 minutes). */
export function stuckExtractionAfterMs(): number {
  return secondsFromEnvironment('PAPERFLOW_EXTRACTION_STUCK_AFTER_SECONDS', 20 * 60) * 1000;
}

/** `paperflow-admin extractions reprocess <id>`: a terminal extraction runs again as a new generation. */
export async function reprocessExtraction(workspaceId: string | undefined, extractionId: string): Promise<ExtractionView> {
  return extractionSummary(await extractionSettlement().reprocess(extractionExecutions(), workspaceId, extractionId));
}
