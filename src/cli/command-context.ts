import { PaperflowApiClient } from './api-client.ts';
import { resolveConnection } from './cli-configuration.ts';
import { colorsEnabled, painterFor, statusStyle, type OutputStream, type Painter } from './terminal-style.ts';
import { formatTable, listSummary, type ItemNoun, type TableColumn } from './table-format.ts';
import { Spinner } from './progress-display.ts';

// What every command gets: the output streams, the API client (configured on first use, so `--help`
// and usage errors need no configuration), and the shared ways of printing a result.

export interface CliIo {
  stdout: OutputStream;
  stderr: OutputStream;
  environment: NodeJS.ProcessEnv;
  /** Interrupts (Ctrl-C) that a long-running command ends cleanly on; the others end at once. */
  onInterrupt?: (stop: () => void) => () => void;
}

export interface PageInfo {
  page: number;
  size: number;
  totalItems: number;
  totalPages: number;
}

export interface ListAnswer<Item> {
  data: Item[];
  pageInfo: PageInfo;
}

export class CommandContext {
  readonly paint: Painter;
  private apiClient: PaperflowApiClient | undefined;

  constructor(
    readonly io: CliIo,
    private readonly profile: () => string | undefined,
  ) {
    this.paint = painterFor(colorsEnabled(io.stdout, io.environment));
  }

  async client(): Promise<PaperflowApiClient> {
    this.apiClient ??= new PaperflowApiClient(await resolveConnection(this.profile(), this.io.environment));
    return this.apiClient;
  }

  out(line = ''): void {
    this.io.stdout.write(`${line}\n`);
  }

  err(line: string): void {
    this.io.stderr.write(`${line}\n`);
  }

  json(value: unknown): void {
    this.out(JSON.stringify(value, null, 2));
  }

  status(status: string): string {
    return this.paint(statusStyle(status), status);
  }

  table<Row>(columns: TableColumn<Row>[], rows: Row[]): void {
    this.out(formatTable(columns, rows, { styleHeader: (text) => this.paint('bold', text) }));
  }

  /** A list answer as a table and a line saying where in the pages it is (or that there is nothing). */
  list<Item>(answer: ListAnswer<Item>, columns: TableColumn<Item>[], noun: ItemNoun): void {
    if (answer.data.length > 0) this.table(columns, answer.data);
    this.out(this.paint('dim', listSummary(answer.pageInfo, answer.data.length, noun)));
  }

  spinner(): Spinner {
    return new Spinner(this.io.stderr);
  }
}

export const sleep = (milliseconds: number) => new Promise<void>((resolve) => setTimeout(resolve, milliseconds));

/**
 * Reads a resource until `isTerminal` says so, showing its status on the spinner. The API's rate
 * limits are met by the client (it waits out a 429's Retry-After); the interval keeps well below them.
 */
export async function pollUntilTerminal<Resource extends { status: string }>(
  context: CommandContext,
  read: () => Promise<Resource>,
  isTerminal: (status: string) => boolean,
  describe: (resource: Resource) => string,
  intervalMs: number,
): Promise<Resource> {
  const spinner = context.spinner();
  try {
    for (;;) {
      const resource = await read();
      if (isTerminal(resource.status)) return resource;
      spinner.show(describe(resource));
      await sleep(intervalMs);
    }
  } finally {
    spinner.stop();
  }
}
