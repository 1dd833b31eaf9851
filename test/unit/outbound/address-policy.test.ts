import { describe, expect, it } from 'vitest';
import { classifyAddress, isAddressAllowed } from '../../../src/outbound/address-policy.ts';

describe('classifyAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '::1',
  ])('treats %s as loopback', (address) => {
    expect(classifyAddress(address)).toBe('loopback');
  });

  it.each([
    '0.0.0.0',
    '10.1.2.3',
    '100.64.0.1',
    '100.127.255.255',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '192.0.2.10',
    '198.18.0.1',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '::',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:8.8.8.8',
    '::ffff:169.254.169.254',
    '::a00:1',
    '64:ff9b::a9fe:a9fe',
    '2002:a9fe:a9fe::1',
    '2001:0:4136:e378::1',
    '2001:db8::1',
    'fc00::1',
    'fd12:3456:789a::1',
    'fe80::1',
    'ff02::1',
    '::ffff:0:7f00:1',
    '3fff::1',
    '2001:2::1',
    '5f00::1',
    'not-an-address',
  ])('treats %s as non-public', (address) => {
    expect(classifyAddress(address)).toBe('non-public');
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001::200e'])(
    'treats %s as public',
    (address) => {
      expect(classifyAddress(address)).toBe('public');
    },
  );
});

describe('isAddressAllowed', () => {
  it('allows loopback only when the local setting allows it', () => {
    expect(isAddressAllowed('127.0.0.1', { allowLoopback: false })).toBe(false);
    expect(isAddressAllowed('127.0.0.1', { allowLoopback: true })).toBe(true);
  });

  it('never allows private or metadata addresses, even with the local setting', () => {
    expect(isAddressAllowed('10.0.0.5', { allowLoopback: true })).toBe(false);
    expect(isAddressAllowed('169.254.169.254', { allowLoopback: true })).toBe(false);
  });
});
