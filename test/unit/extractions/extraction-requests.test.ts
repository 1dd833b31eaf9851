import { describe, expect, it } from 'vitest';
import { documentReferenceIssues, labelIssues } from '../../../src/extractions/extraction-requests.ts';
import { listQueryOf } from '../../../src/extractions/extraction-list-query.ts';
import { InvalidRequestError } from '../../../src/platform/errors.ts';

const strict = { allowHttp: false, allowLoopback: false };

describe('labelIssues', () => {
  it('accepts up to 50 labels with docType counted', () => {
    const fifty = Object.fromEntries(Array.from({ length: 49 }, (_, index) => [`k${index}`, 'v']));

    expect(labelIssues({ ...fifty, docType: 'invoice' })).toEqual([]);
    expect(labelIssues({ ...fifty, docType: 'invoice', extra: 'v' })).toEqual([{ field: 'labels', issue: expect.stringContaining('At most 50') }]);
  });

  it('counts characters, not bytes or UTF-16 units', () => {
    expect(labelIssues({ ['😀'.repeat(64)]: '€'.repeat(512) })).toEqual([]);
    expect(labelIssues({ ['😀'.repeat(65)]: 'v' })[0]!.field).toBe(`labels.${'😀'.repeat(65)}`);
  });

  it('refuses empty or blank keys and values with the key in the path', () => {
    expect(labelIssues({ '': 'v', ' ': 'v', a: '', b: '\t ' }).map((issue) => issue.field)).toEqual(['labels.', 'labels. ', 'labels.a', 'labels.b']);
  });

  it('refuses keys and values with a lone surrogate, and the key __proto__', () => {
    const labels = JSON.parse('{"\\udfff":"v","customer":"\\ud800x","__proto__":"x","constructor":"c","prototype":"p","pair":"\\ud83d\\ude00"}');

    expect(labelIssues(labels)).toEqual([
      { field: 'labels.\udfff', issue: expect.stringContaining('key must be well-formed Unicode') },
      { field: 'labels.customer', issue: expect.stringContaining('value must be well-formed Unicode') },
      { field: 'labels.__proto__', issue: 'is not allowed as a label key' },
    ]);
  });
});

describe('documentReferenceIssues', () => {
  it('wants exactly one of fileId and url', () => {
    expect(documentReferenceIssues({ fileId: 'file_1', url: 'https://example.com/a.pdf' }, strict)).toEqual([
      { field: 'document', issue: 'Send either document.fileId or document.url, not both.' },
    ]);
    expect(documentReferenceIssues({}, strict)[0]!.field).toBe('document');
    expect(documentReferenceIssues({ fileId: 'file_01JZ0000000000000000000000' }, strict)).toEqual([]);
  });

  it('refuses a fileId that is not a file id, before any lookup', () => {
    for (const fileId of ['file_1', `file_${'A'.repeat(2_100)}`, 'ext_01JZ0000000000000000000000', 'file_01jz0000000000000000000000']) {
      expect(documentReferenceIssues({ fileId }, strict)).toEqual([{ field: 'document.fileId', issue: expect.stringContaining('not a file id') }]);
    }
  });

  it('checks URLs with the outbound rules', () => {
    expect(documentReferenceIssues({ url: 'https://192.168.1.1/x.pdf' }, strict)).toEqual([
      { field: 'document.url', issue: 'The URL must not point to a private, loopback or reserved address.' },
    ]);
    expect(documentReferenceIssues({ url: 'https://example.com/x.pdf', fileName: 'x.pdf' }, strict)).toEqual([]);
  });
});

describe('listQueryOf', () => {
  it('applies the defaults', () => {
    expect(listQueryOf({})).toEqual({ page: 0, size: 50, sortBy: 'createdAt', sort: 'desc', labels: {} });
  });

  it('normalises the window to UTC and refuses from after to', () => {
    expect(listQueryOf({ from: '2026-01-01T01:00:00+01:00' }).from).toBe('2026-01-01T00:00:00.000Z');
    expect(() => listQueryOf({ from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' })).toThrow(InvalidRequestError);
  });

  it('refuses out-of-range pages', () => {
    expect(() => listQueryOf({ size: '101' })).toThrow(InvalidRequestError);
    expect(() => listQueryOf({ page: '-1' })).toThrow(InvalidRequestError);
  });
});
