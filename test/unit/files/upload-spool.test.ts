import { readdir } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UploadSpool } from '../../../src/files/upload-spool.ts';
import { redirectTmpdir } from '../../support/redirected-tmpdir.ts';

// The spool's directory is created under os.tmpdir(), which follows TMPDIR: each test gets its own, so
// "nothing left behind" is a listing of that folder.

let redirected: ReturnType<typeof redirectTmpdir>;
let spoolRoot: string;

beforeEach(() => {
  redirected = redirectTmpdir('spool-unit-');
  spoolRoot = redirected.folder;
});

afterEach(() => redirected.restore());

describe('UploadSpool', () => {
  it('removes its directory when discarded while its first write is still creating it', async () => {
    const spool = new UploadSpool();
    const firstWrite = spool.write(Buffer.from('%PDF-1.7'));
    const discarded = spool.discard();

    await expect(firstWrite).rejects.toThrow(/discarded/);
    await discarded;
    expect(await readdir(spoolRoot)).toEqual([]);
  });

  it('takes no bytes once discarded, and creates nothing', async () => {
    const spool = new UploadSpool();
    await spool.discard();

    await expect(spool.write(Buffer.from('late part'))).rejects.toThrow(/discarded/);
    expect(spool.started).toBe(false);
    expect(await readdir(spoolRoot)).toEqual([]);
  });

  it('removes what it wrote when discarded after closing', async () => {
    const spool = new UploadSpool();
    await spool.write(Buffer.from('Payment advice: 12.00 EUR'));
    await spool.close();
    expect(await readdir(spoolRoot)).toHaveLength(1);

    await spool.discard();
    expect(await readdir(spoolRoot)).toEqual([]);
  });
});
