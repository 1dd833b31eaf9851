import type { OutputStream } from './terminal-style.ts';

// The upload progress bar and the waiting spinner. Both draw on stderr and only on a terminal: stdout
// stays the command's result (a table or JSON a script can read), and a log file never fills with
// carriage returns. Off a terminal the spinner says once what it waits for.

const spinnerFrames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const barWidth = 30;
const clearLine = '\r\u001b[2K';

/** `[#####-----]  42%  1.2 MB / 2.9 MB` for `sent` of `total` bytes. */
export function progressBarLine(sent: number, total: number): string {
  const fraction = total > 0 ? Math.min(sent / total, 1) : 1;
  const filled = Math.round(fraction * barWidth);
  return `[${'#'.repeat(filled)}${'-'.repeat(barWidth - filled)}] ${String(Math.floor(fraction * 100)).padStart(3)}%  ${byteSize(sent)} / ${byteSize(total)}`;
}

export function byteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

export class UploadProgress {
  private lastDrawn = 0;

  constructor(
    private readonly stream: OutputStream,
    private readonly label: string,
  ) {}

  update(sent: number, total: number): void {
    if (!this.stream.isTTY) return;
    // Redrawn at most every 50 ms, and at the end, so a fast upload does not flood the terminal.
    const now = Date.now();
    if (sent < total && now - this.lastDrawn < 50) return;
    this.lastDrawn = now;
    this.stream.write(`${clearLine}${this.label} ${progressBarLine(sent, total)}`);
  }

  done(): void {
    if (this.stream.isTTY) this.stream.write('\n');
  }
}

export class Spinner {
  private timer: NodeJS.Timeout | undefined;
  private frame = 0;
  private text = '';

  constructor(private readonly stream: OutputStream) {}

  /** Shows `text` after the spinner; off a terminal, each new text is one line. */
  show(text: string): void {
    if (text === this.text) return;
    this.text = text;
    if (!this.stream.isTTY) {
      this.stream.write(`${text}\n`);
      return;
    }
    this.draw();
    this.timer ??= setInterval(() => this.draw(), 100);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.stream.isTTY && this.text !== '') this.stream.write(clearLine);
    this.text = '';
  }

  private draw(): void {
    this.frame = (this.frame + 1) % spinnerFrames.length;
    this.stream.write(`${clearLine}${spinnerFrames[this.frame]} ${this.text}`);
  }
}
