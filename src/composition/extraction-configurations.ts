import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { paperflowConfiguration } from './configuration.ts';
import { DynamoDbAppliedConfigurations } from '../extraction-configurations/aws/dynamodb-applied-configurations.ts';
import { ExtractionConfigurationStore } from '../extraction-configurations/extraction-configuration-store.ts';

export function extractionConfigurationStore(): ExtractionConfigurationStore {
  return new ExtractionConfigurationStore(new DynamoDbAppliedConfigurations(dynamoDocumentClient(), paperflowConfiguration().resources.recordsTableName()));
}
