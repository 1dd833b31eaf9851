import { eventRecorder } from './events.ts';
import { fileBlobStore, fileLookup, fileRecordStore } from './file-lookup.ts';
import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { s3Client } from '../infrastructure/s3-client.ts';
import { sfnClient } from '../infrastructure/sfn-client.ts';
import { configuredUrlPolicy, paperflowConfiguration } from './configuration.ts';
import { builtOnFirstUse } from './built-on-first-use.ts';
import { extractionSummary, type ExtractionView } from '../extractions/extraction.ts';
import { ExtractionDocuments } from '../extractions/extraction-documents.ts';
import { DynamoDbExtractionStore } from '../extractions/aws/dynamodb-extraction-store.ts';
import { StepFunctionsExtractionExecutions } from '../extractions/aws/step-functions-extraction-executions.ts';
import type { ExtractionExecutions } from '../extractions/extraction-executions.ts';
import { DynamoDbContentCorrections } from '../extractions/aws/dynamodb-content-corrections.ts';
import { DynamoDbExtractionOutputs } from '../extractions/aws/dynamodb-extraction-outputs.ts';
import { ExtractionOutputStore } from '../extractions/extraction-output-store.ts';
import { ExtractionService, type ExtractionServiceDependencies } from '../extractions/extraction-service.ts';
import { ExtractionSettlement } from '../extractions/extraction-settlement.ts';

// Built from the function's configuration (configuration.ts); clients are shared per process.
// Nothing here may import the files upload path (DirectUploads, sniffing): every extraction API handler
// bundles this module; upload-extraction adds the upload (extraction-uploads.ts), the fetch task the sniffing.

/** The records table's store; seeding and tests also reach its counters and table name. */
export function extractionStore(): DynamoDbExtractionStore {
  return new DynamoDbExtractionStore(dynamoDocumentClient(), paperflowConfiguration().resources.recordsTableName());
}

/** Built on first use: the tasks and reads that settle or list extractions without large outputs name no bucket. */
export function outputStore(): ExtractionOutputStore {
  const { resources } = paperflowConfiguration();
  return new ExtractionOutputStore(
    builtOnFirstUse(() => new DynamoDbExtractionOutputs(dynamoDocumentClient(), resources.recordsTableName(), s3Client(), resources.filesBucketName())),
    contentCorrections(),
  );
}

/** Corrections remembered per document content (value correction; the feedback export reads them). */
export function contentCorrections(): DynamoDbContentCorrections {
  return new DynamoDbContentCorrections(dynamoDocumentClient(), paperflowConfiguration().resources.recordsTableName());
}

export function extractionDocuments(): ExtractionDocuments {
  return new ExtractionDocuments(fileRecordStore(), fileBlobStore(), fileLookup());
}

export function extractionSettlement(): ExtractionSettlement {
  return new ExtractionSettlement(extractionStore(), outputStore(), eventRecorder());
}

/** Built on first use: only the routes and tasks that start (or reprocess) extractions name the state machine. */
export function extractionExecutions(): ExtractionExecutions {
  const { resources } = paperflowConfiguration();
  return builtOnFirstUse(() => new StepFunctionsExtractionExecutions(sfnClient(), resources.stateMachineArn('extraction')));
}

/** Creates by fileId or url, reads, deletes; uploads need `extractionServiceWithUploads()` (extraction-uploads.ts), feedback `extractionServiceWithFeedback()` (extraction-feedback.ts). */
export function extractionService(): ExtractionService {
  return new ExtractionService({ ...serviceDependencies(), documents: extractionDocuments() });
}

/** What every extraction service has; documents (reads of files, download links), uploads and the workspace configuration are added by use. */
export function serviceDependencies(): ExtractionServiceDependencies {
  return {
    store: extractionStore(),
    outputs: outputStore(),
    executions: extractionExecutions(),
    settlement: extractionSettlement(),
    urlPolicy: configuredUrlPolicy,
  };
}

/** Extractions in flight longer than this are ended FAILED by the sweeper (default 20 minutes). */
export function stuckExtractionAfterMs(): number {
  return paperflowConfiguration().settings.stuckExtractionAfterMs;
}

/** `paperflow-admin extractions reprocess <id>`: a terminal extraction runs again as a new generation. */
export async function reprocessExtraction(workspaceId: string | undefined, extractionId: string): Promise<ExtractionView> {
  return extractionSummary(await extractionSettlement().reprocess(extractionExecutions(), workspaceId, extractionId));
}
