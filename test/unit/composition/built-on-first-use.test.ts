import { describe, expect, it } from 'vitest';
import { builtOnFirstUse } from '../../../src/composition/built-on-first-use.ts';
import { limitedTo, readConfiguration } from '../../../src/composition/configuration.ts';

class Bucketed {
  constructor(private readonly bucketName: string) {}
  nameOf(key: string): string {
    return `${this.bucketName}/${key}`;
  }
}

describe('builtOnFirstUse', () => {
  it('builds nothing until a member is used, then builds once, with methods bound to the built object', () => {
    let builds = 0;
    const lazy = builtOnFirstUse(() => {
      builds += 1;
      return new Bucketed('files');
    });
    const builtBeforeUse = builds;

    const { nameOf } = lazy;

    expect(builtBeforeUse).toBe(0);
    expect(nameOf('a')).toBe('files/a');
    expect(lazy.nameOf('b')).toBe('files/b');
    expect(builds).toBe(1);
  });

  it('lets a function hold an adapter of a resource its row does not name, failing only when it is used', () => {
    const { resources } = limitedTo(readConfiguration({ PAPERFLOW_TABLE_NAME: 'records', PAPERFLOW_BUCKET_NAME: 'files' }), { recordsTable: 'read' });

    const adapter = builtOnFirstUse(() => new Bucketed(resources.filesBucketName()));

    expect(() => adapter.nameOf('a')).toThrow(/^PAPERFLOW_BUCKET_NAME is not set/);
  });
});
