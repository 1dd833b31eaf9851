import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/cli/cli-errors.ts';
import { checkedForwardUrl } from '../../../src/cli/listen-command.ts';

describe('checkedForwardUrl', () => {
  it('takes a URL without a scheme as http, as stripe listen --forward-to does', () => {
    expect(checkedForwardUrl('localhost:3000/hooks')).toBe('http://localhost:3000/hooks');
    expect(checkedForwardUrl('127.0.0.1:8080')).toBe('http://127.0.0.1:8080/');
  });

  it('keeps the scheme it is given', () => {
    expect(checkedForwardUrl('https://receiver.test/hooks?x=1')).toBe('https://receiver.test/hooks?x=1');
    expect(checkedForwardUrl('HTTP://localhost:3000/hooks')).toBe('http://localhost:3000/hooks');
  });

  it('refuses other schemes and what is no URL', () => {
    expect(() => checkedForwardUrl('ftp://localhost/hooks')).toThrow(UsageError);
    expect(() => checkedForwardUrl('localhost:port/hooks')).toThrow(UsageError);
  });
});
