import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { paperflowConfiguration } from './configuration.ts';
import { DynamoDbAppliedConfigurations } from '../extraction-configurations/aws/dynamodb-applied-configurations.ts';
import { ExtractionConfigurationLookup } from '../extraction-configurations/extraction-configuration-lookup.ts';

// Apart from extraction-configurations.ts, which builds the store that applies an operator's file and
// so bundles the YAML parser: every extraction function needs only the configuration in force.

export function extractionConfigurationLookup(): ExtractionConfigurationLookup {
  return new ExtractionConfigurationLookup(appliedConfigurations());
}

export function appliedConfigurations(): DynamoDbAppliedConfigurations {
  return new DynamoDbAppliedConfigurations(dynamoDocumentClient(), paperflowConfiguration().resources.recordsTableName());
}
