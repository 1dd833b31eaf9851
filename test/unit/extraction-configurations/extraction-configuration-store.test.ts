import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { defaultExtractionConfiguration } from '../../../src/extraction-engine/index.ts';
import { DynamoDbAppliedConfigurations } from '../../../src/extraction-configurations/aws/dynamodb-applied-configurations.ts';
import { ExtractionConfigurationStore } from '../../../src/extraction-configurations/extraction-configuration-store.ts';
import { InMemoryAppliedConfigurations } from '../../support/memory/in-memory-extraction-configurations.ts';
import { documentClient } from '../../support/mocked-records.ts';

const appliedAt = new Date('2026-03-01T12:00:00Z');
const invoiceRejectingDuplicates = 'documentTypes:\n  - prebuilt: invoice\n    duplicatePolicy: reject\n';

describe('ExtractionConfigurationStore', () => {
  const store = (applied = new InMemoryAppliedConfigurations()) => new ExtractionConfigurationStore(applied, () => appliedAt);

  it('falls back to the engine default for a workspace without its own', async () => {
    expect(await store().get('ws_a')).toEqual({ workspaceId: 'ws_a', configuration: defaultExtractionConfiguration, isDefault: true });
  });

  it('stores a valid configuration with its source text, and reads it back for that workspace only', async () => {
    const configurations = store();

    const result = await configurations.apply('ws_a', invoiceRejectingDuplicates);

    expect(result.ok).toBe(true);
    const read = await configurations.get('ws_a');
    expect(read).toMatchObject({ workspaceId: 'ws_a', isDefault: false, source: invoiceRejectingDuplicates, appliedAt: '2026-03-01T12:00:00.000Z' });
    expect(read.configuration.documentTypes[0]).toMatchObject({ prebuilt: 'invoice', duplicatePolicy: 'reject' });
    expect((await configurations.get('ws_b')).isDefault).toBe(true);
  });

  it('stores nothing when the configuration has problems, and says where', async () => {
    const applied = new InMemoryAppliedConfigurations();

    const result = await store(applied).apply('ws_a', '{"documentTypes": [{"docType": "Bad Name", "fields": []}]}', 'json');

    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.problems.map((problem) => problem.path)).toContain('documentTypes[0].docType');
    expect(applied.applied.size).toBe(0);
  });
});

describe('DynamoDbAppliedConfigurations', () => {
  const documents = mockClient(DynamoDBDocumentClient);
  const adapter = () => new DynamoDbAppliedConfigurations(documentClient(), 'records');
  beforeEach(() => documents.reset());

  it('keeps one item per workspace', async () => {
    documents.on(PutCommand).resolves({});

    await adapter().save('ws_a', { configuration: defaultExtractionConfiguration, source: invoiceRejectingDuplicates, appliedAt: appliedAt.toISOString() });

    expect(documents.commandCalls(PutCommand)[0]!.args[0].input.Item).toMatchObject({ pk: 'WS#ws_a', sk: 'EXTRACTION_CONFIGURATION', source: invoiceRejectingDuplicates, appliedAt: '2026-03-01T12:00:00.000Z' });
  });

  it('reads back what was applied, through the engine\'s schema', async () => {
    documents.on(GetCommand).resolves({ Item: { configuration: { version: 1, documentTypes: [{ prebuilt: 'receipt', duplicatePolicy: 'allow' }] }, source: 'x', appliedAt: '2026-03-01T12:00:00.000Z' } });

    expect(await adapter().find('ws_a')).toMatchObject({ source: 'x', configuration: { documentTypes: [{ prebuilt: 'receipt' }] } });
  });

  it('names the workspace whose stored configuration the engine no longer accepts', async () => {
    documents.on(GetCommand).resolves({ Item: { configuration: { documentTypes: 'none' }, source: 'x', appliedAt: '2026-03-01T12:00:00.000Z' } });

    await expect(adapter().find('ws_a')).rejects.toThrow(/ws_a is no longer valid: documentTypes/);
  });
});
