import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { requiredEnvironment, resourceEnvironment } from '../infrastructure/resource-definitions.ts';
import { ExtractionConfigurationStore } from './extraction-configuration-store.ts';

export function extractionConfigurationStore(): ExtractionConfigurationStore {
  return new ExtractionConfigurationStore(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName));
}
