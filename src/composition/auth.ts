import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { paperflowConfiguration } from './configuration.ts';
import { DynamoDbWorkspaceStore } from '../workspaces/aws/dynamodb-workspace-store.ts';
import type { WorkspaceStore } from '../workspaces/workspace-store.ts';
import { DynamoDbApiKeyStore } from '../auth/aws/dynamodb-api-key-store.ts';
import { ApiKeyService, type EdgeRateLimitRegistry } from '../auth/api-keys.ts';

// Built from the function's configuration (configuration.ts). The services are thin and cheap;
// the SDK clients underneath are the long-lived, shared part.

export function apiKeyService(edgeRateLimits?: EdgeRateLimitRegistry): ApiKeyService {
  const tableName = paperflowConfiguration().resources.recordsTableName();
  const client = dynamoDocumentClient();
  return new ApiKeyService(new DynamoDbApiKeyStore(client, tableName), new DynamoDbWorkspaceStore(client, tableName), () => new Date(), edgeRateLimits);
}

export function workspaceStore(): WorkspaceStore {
  return new DynamoDbWorkspaceStore(dynamoDocumentClient(), paperflowConfiguration().resources.recordsTableName());
}
