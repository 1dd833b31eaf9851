import { describe, expect, it } from 'vitest';
import { progressBarLine, Spinner, UploadProgress } from '../../../src/cli/progress-display.ts';

describe('progressBarLine', () => {
  it('draws the share sent and the sizes', () => {
    expect(progressBarLine(512 * 1024, 2 * 1024 * 1024)).toBe(`[${'#'.repeat(8)}${'-'.repeat(22)}]  25%  512.0 KB / 2.0 MB`);
    expect(progressBarLine(10, 10)).toBe(`[${'#'.repeat(30)}] 100%  10 B / 10 B`);
  });
});

describe('Spinner and UploadProgress', () => {
  const recording = (isTTY: boolean) => {
    const written: string[] = [];
    return { stream: { isTTY, write: (text: string) => written.push(text) }, written };
  };

  it('off a terminal, say each new state once as a line and draw no bar', () => {
    const { stream, written } = recording(false);
    const spinner = new Spinner(stream);
    const progress = new UploadProgress(stream, 'Uploading a.pdf');

    progress.update(5, 10);
    progress.done();
    spinner.show('Waiting for ext_1 (QUEUED)');
    spinner.show('Waiting for ext_1 (QUEUED)');
    spinner.show('Waiting for ext_1 (PROCESSING)');
    spinner.stop();

    expect(written).toEqual(['Waiting for ext_1 (QUEUED)\n', 'Waiting for ext_1 (PROCESSING)\n']);
  });

  it('on a terminal, redraw one line and clear it when stopped', () => {
    const { stream, written } = recording(true);
    const spinner = new Spinner(stream);

    spinner.show('Waiting for run_1 (PROCESSING)');
    spinner.stop();

    expect(written[0]).toMatch(/^\r\u001b\[2K. Waiting for run_1 \(PROCESSING\)$/);
    expect(written.at(-1)).toBe('\r\u001b[2K');
  });
});
