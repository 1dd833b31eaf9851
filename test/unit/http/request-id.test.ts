import { describe, expect, it } from 'vitest';
import { resolveRequestId } from '../../../src/http/request-id.ts';

describe('request id', () => {
  it('echoes a client value of 1-128 printable characters', () => {
    expect(resolveRequestId('client-trace-42')).toBe('client-trace-42');
    expect(resolveRequestId('x'.repeat(128))).toBe('x'.repeat(128));
  });

  it.each([undefined, '', 'x'.repeat(129), 'has space', 'new\nline', 'ünicode'])('generates one instead of %j', (value) => {
    expect(resolveRequestId(value)).toMatch(/^req_[0-9a-f-]{36}$/);
  });
});
