import { dynamoDocumentClient } from '../../src/infrastructure/dynamodb-client.ts';
import { paperflowConfiguration } from '../../src/composition/configuration.ts';

/**
 * The records table with a client of the test's own, for reading or writing items below the domain
 * stores (scans of everything a workspace left, simulated crashes). Needs a running stack.
 */
export function recordsTable() {
  return { client: dynamoDocumentClient(), tableName: paperflowConfiguration().resources.recordsTableName() };
}
