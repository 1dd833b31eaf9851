import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { paperflowConfiguration } from './configuration.ts';
import { ExtractionConfigurationStore } from '../extraction-configurations/extraction-configuration-store.ts';

export function extractionConfigurationStore(): ExtractionConfigurationStore {
  return new ExtractionConfigurationStore(dynamoDocumentClient(), paperflowConfiguration().resources.recordsTableName());
}
