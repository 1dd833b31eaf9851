import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { requiredEnvironment, resourceEnvironment } from '../infrastructure/resource-definitions.ts';
import { DynamoDbWorkspaceStore } from '../workspaces/aws/dynamodb-workspace-store.ts';
import type { WorkspaceStore } from '../workspaces/workspace-store.ts';
import { DynamoDbApiKeyStore } from './aws/dynamodb-api-key-store.ts';
import { ApiKeyService, type EdgeRateLimitRegistry } from './api-keys.ts';

// Built from the environment the stack (deployed or local) sets. The services are thin and cheap;
// the SDK clients underneath are the long-lived, shared part.

export function apiKeyService(edgeRateLimits?: EdgeRateLimitRegistry): ApiKeyService {
  const tableName = requiredEnvironment(resourceEnvironment.recordsTableName);
  const client = dynamoDocumentClient();
  return new ApiKeyService(new DynamoDbApiKeyStore(client, tableName), new DynamoDbWorkspaceStore(client, tableName), () => new Date(), edgeRateLimits);
}

export function workspaceStore(): WorkspaceStore {
  return new DynamoDbWorkspaceStore(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName));
}
