import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { requiredEnvironment, resourceEnvironment } from '../infrastructure/resource-definitions.ts';
import { WorkspaceStore } from '../workspaces/workspace-store.ts';
import { ApiKeyStore } from './api-key-store.ts';
import { ApiKeyService, type EdgeRateLimitRegistry } from './api-keys.ts';

// Built from the environment the stack (deployed or local) sets. The services are thin and cheap;
// the SDK clients underneath are the long-lived, shared part.

export function apiKeyService(edgeRateLimits?: EdgeRateLimitRegistry): ApiKeyService {
  const tableName = requiredEnvironment(resourceEnvironment.recordsTableName);
  const client = dynamoDocumentClient();
  return new ApiKeyService(new ApiKeyStore(client, tableName), new WorkspaceStore(client, tableName), () => new Date(), edgeRateLimits);
}

export function workspaceStore(): WorkspaceStore {
  return new WorkspaceStore(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName));
}
