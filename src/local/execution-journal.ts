import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { logger } from '../infrastructure/logger.ts';

// Deployed, a Step Functions execution outlives whatever process started it; the local emulation
// runs executions in memory, so a restart of the stack would forget them and leave their extraction
// or run in flight until the sweeper fails it. Each started execution is therefore written here, in
// the data folder, before StartExecution answers, and removed once it has ended: what a process
// stopped (SIGTERM) or killed (kill -9) leaves behind is what the next start runs again from its
// input. Every task of the state machines is idempotent (a re-run converges to the same terminal
// state and one event), so running one again from the start is safe.

/** What a restart needs to run an execution again, as StartExecution received it. */
export interface JournaledExecution {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  input: string;
  /** ISO 8601: DescribeExecution keeps answering the first start's date. */
  startDate: string;
}

/** A journaled execution as read back, with the file that holds it. */
export type RecordedExecution = JournaledExecution & { file: string };

export class ExecutionJournal {
  constructor(private readonly directory: string) {}

  /**
   * Written beside its place and renamed into it, so a kill mid-write leaves the previous state (no
   * file) rather than a torn one; an acknowledged write has reached the operating system.
   */
  async record(execution: JournaledExecution): Promise<void> {
    await mkdir(this.directory, { recursive: true });
    const path = this.pathOf(execution.executionArn);
    const partial = `${path}.${process.pid}.partial`;
    await writeFile(partial, JSON.stringify(execution));
    await rename(partial, path);
  }

  async forget(executionArn: string): Promise<void> {
    await rm(this.pathOf(executionArn), { force: true });
  }

  /** Removes a record `unfinished` returned that will not be resumed, wherever its file is. */
  async drop(recorded: RecordedExecution): Promise<void> {
    await rm(recorded.file, { force: true });
  }

  /** The executions recorded and not ended, oldest first; a file that cannot be read is dropped with a warning. */
  async unfinished(): Promise<RecordedExecution[]> {
    let names: string[];
    try {
      names = await readdir(this.directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const executions: RecordedExecution[] = [];
    for (const name of names) {
      const path = join(this.directory, name);
      if (!name.endsWith('.json')) {
        // A write that a kill interrupted before its rename: its StartExecution was never answered.
        if (name.endsWith('.partial')) await rm(path, { force: true });
        continue;
      }
      const execution = parseJournaled(await readFile(path, 'utf8').catch(() => ''));
      if (execution) executions.push({ ...execution, file: path });
      else {
        logger.warn('local Step Functions: an unreadable execution record was dropped', { path });
        await rm(path, { force: true });
      }
    }
    return executions.sort((a, b) => a.startDate.localeCompare(b.startDate));
  }

  private pathOf(executionArn: string): string {
    // ARNs hold colons; a digest is a file name on every platform.
    return join(this.directory, `${createHash('sha256').update(executionArn).digest('hex').slice(0, 40)}.json`);
  }
}

function parseJournaled(text: string): JournaledExecution | undefined {
  try {
    const value = JSON.parse(text) as Partial<JournaledExecution>;
    const fields = [value.executionArn, value.stateMachineArn, value.name, value.input, value.startDate];
    return fields.every((field) => typeof field === 'string') ? (value as JournaledExecution) : undefined;
  } catch {
    return undefined;
  }
}
