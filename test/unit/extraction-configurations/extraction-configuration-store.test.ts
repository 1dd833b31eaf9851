import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { defaultExtractionConfiguration } from '../../../src/extraction-engine/configuration/parse-extraction-configuration.ts';
import { ExtractionConfigurationStore } from '../../../src/extraction-configurations/extraction-configuration-store.ts';

const documents = mockClient(DynamoDBDocumentClient);
const store = () => new ExtractionConfigurationStore(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })), 'records', () => new Date('2026-03-01T12:00:00Z'));

beforeEach(() => documents.reset());

describe('ExtractionConfigurationStore', () => {
  it('falls back to the engine default for a workspace without its own', async () => {
    documents.on(GetCommand).resolves({});

    expect(await store().get('ws_a')).toEqual({ workspaceId: 'ws_a', configuration: defaultExtractionConfiguration, isDefault: true });
  });

  it('stores a valid configuration with its source text', async () => {
    documents.on(PutCommand).resolves({});
    const source = 'documentTypes:\n  - prebuilt: invoice\n    duplicatePolicy: reject\n';

    const result = await store().apply('ws_a', source);

    expect(result.ok).toBe(true);
    const item = documents.commandCalls(PutCommand)[0]!.args[0].input.Item!;
    expect(item).toMatchObject({ pk: 'WS#ws_a', sk: 'EXTRACTION_CONFIGURATION', source, appliedAt: '2026-03-01T12:00:00.000Z' });
    expect(item.configuration.documentTypes[0]).toMatchObject({ prebuilt: 'invoice', duplicatePolicy: 'reject' });
  });

  it('stores nothing when the configuration has problems, and says where', async () => {
    const result = await store().apply('ws_a', '{"documentTypes": [{"docType": "Bad Name", "fields": []}]}', 'json');

    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.problems.map((problem) => problem.path)).toContain('documentTypes[0].docType');
    expect(documents.commandCalls(PutCommand)).toHaveLength(0);
  });

  it('reads back what was applied', async () => {
    documents.on(GetCommand).resolves({ Item: { configuration: { version: 1, documentTypes: [{ prebuilt: 'receipt', duplicatePolicy: 'allow' }] }, source: 'x', appliedAt: '2026-03-01T12:00:00.000Z' } });

    expect(await store().get('ws_a')).toMatchObject({ isDefault: false, source: 'x', configuration: { documentTypes: [{ prebuilt: 'receipt' }] } });
  });
});
