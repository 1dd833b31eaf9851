import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A 4 MiB buffer lets the spool take chunks while earlier ones are written (as batched writes); with
// the default 16 KB every 64 KB chunk waited for its own write, and so did the request.
const spoolBufferBytes = 4 * 1024 * 1024;

/**
 * A temporary file for bytes that cannot go to S3 yet; created on the first write. Once discarded it
 * takes no more bytes, so a part still arriving after its request was refused leaves no file behind.
 */
export class UploadSpool {
  private directory: string | undefined;
  private output: WriteStream | undefined;
  private opening: Promise<WriteStream> | undefined;
  private discarded = false;
  private failure: Error | undefined;

  get started(): boolean {
    return this.output !== undefined;
  }

  get path(): string {
    if (!this.directory) throw new Error('Nothing was spooled.');
    return join(this.directory, 'content');
  }

  /** Resolves when the spool can take more. */
  async write(chunk: Buffer): Promise<void> {
    if (this.discarded) throw new Error('The upload spool was discarded.');
    this.opening ??= this.open();
    const output = await this.opening;
    if (this.discarded) throw new Error('The upload spool was discarded.');
    if (this.failure) throw this.failure;
    if (!output.write(chunk)) await drainedOrClosed(output);
    if (this.failure) throw this.failure;
  }

  private async open(): Promise<WriteStream> {
    this.directory = await mkdtemp(join(tmpdir(), 'paperflow-upload-'));
    const output = createWriteStream(this.path, { highWaterMark: spoolBufferBytes });
    // A failing spool (disk full) fails the next write, not the process with an unhandled 'error'.
    output.on('error', (error) => (this.failure = error));
    this.output = output;
    return output;
  }

  async close(): Promise<void> {
    if (!this.output) return;
    this.output.end();
    await once(this.output, 'close');
    if (this.failure) throw this.failure;
  }

  async discard(): Promise<void> {
    this.discarded = true;
    // A first write may be creating the directory right now: remove it once it exists.
    await this.opening?.catch(() => undefined);
    this.output?.destroy();
    if (this.directory) await rm(this.directory, { recursive: true, force: true });
  }
}

/** Resolves at the next 'drain', or at 'close' when a failed stream will never drain. */
function drainedOrClosed(output: WriteStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      output.off('drain', done);
      output.off('close', done);
      resolve();
    };
    output.on('drain', done);
    output.on('close', done);
  });
}
