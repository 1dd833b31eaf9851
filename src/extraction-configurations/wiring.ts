import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { requiredEnvironment, resourceEnvironment } from '../infrastructure/resource-definitions.ts';
import { DynamoDbAppliedConfigurations } from './aws/dynamodb-applied-configurations.ts';
import { ExtractionConfigurationStore } from './extraction-configuration-store.ts';

export function extractionConfigurationStore(): ExtractionConfigurationStore {
  return new ExtractionConfigurationStore(new DynamoDbAppliedConfigurations(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName)));
}
