import type { Message } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { reportedFailures } from '../../../src/local/local-queue-consumers.ts';

// Which messages of a batch stay on the queue after the handler answered, by the rules AWS documents
// for ReportBatchItemFailures (the integration test covers the polling and deleting around it).
const batch: Message[] = [{ MessageId: 'm-1' }, { MessageId: 'm-2' }, { MessageId: 'm-3' }];

describe('reported batch item failures', () => {
  it('keeps exactly the reported messages', () => {
    expect(reportedFailures({ batchItemFailures: [{ itemIdentifier: 'm-2' }] }, batch)).toEqual(new Set(['m-2']));
  });

  it('counts an empty or missing answer as success for the whole batch', () => {
    expect(reportedFailures({ batchItemFailures: [] }, batch)).toEqual(new Set());
    expect(reportedFailures(undefined, batch)).toEqual(new Set());
  });

  it('fails the whole batch for an answer Lambda would not accept', () => {
    expect(reportedFailures({ batchItemFailures: [{ itemIdentifier: '' }] }, batch)).toBe('wholeBatch');
    expect(reportedFailures({ batchItemFailures: [{ itemIdentifier: 'not-in-this-batch' }] }, batch)).toBe('wholeBatch');
    expect(reportedFailures({ batchItemFailures: [{} as never] }, batch)).toBe('wholeBatch');
    expect(reportedFailures({ batchItemFailures: 'm-1' as never }, batch)).toBe('wholeBatch');
  });
});
