import { dynamoDocumentClient } from '../infrastructure/aws-clients.ts';
import { requiredEnvironment, resourceEnvironment } from '../infrastructure/resource-definitions.ts';
import { WorkspaceStore } from '../workspaces/workspace-store.ts';
import { ApiKeyStore } from './api-key-store.ts';
import { ApiKeyService, type EdgeRateLimitRegistry } from './api-keys.ts';

// Built once per process from the environment the stack (deployed or local) sets.
let service: ApiKeyService | undefined;

export function apiKeyService(): ApiKeyService {
  if (!service) {
    const tableName = requiredEnvironment(resourceEnvironment.recordsTableName);
    const client = dynamoDocumentClient();
    service = new ApiKeyService(new ApiKeyStore(client, tableName), new WorkspaceStore(client, tableName));
  }
  return service;
}

/** For operator tools: key creation also registers the key with the edge's rate limits, if any. */
export function apiKeyServiceWithEdgeLimits(edgeRateLimits: EdgeRateLimitRegistry | undefined): ApiKeyService {
  const tableName = requiredEnvironment(resourceEnvironment.recordsTableName);
  const client = dynamoDocumentClient();
  return new ApiKeyService(new ApiKeyStore(client, tableName), new WorkspaceStore(client, tableName), () => new Date(), edgeRateLimits);
}

export function workspaceStore(): WorkspaceStore {
  return new WorkspaceStore(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName));
}
