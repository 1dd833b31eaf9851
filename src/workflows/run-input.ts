// The run's `body` from the request of POST /workflows/{workflowId}/runs (spec, Workflows).
// CONTRACT (issue 12): multipart/form-data is implemented on the workflow-steps branch.
import type { Readable } from 'node:stream';
import { InvalidRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../platform/errors.ts';

export interface RunInputRequest {
  contentType: string | undefined;
  stream: Readable;
  declaredBodyBytes?: number;
}

/** A JSON run input is kept in the run record; larger inputs belong in files. */
export const maximumJsonRunInputBytes = 256 * 1024;

/**
 * The run's `body`: the JSON body as sent, `null` when there is none; for multipart/form-data, text
 * parts as strings, JSON parts as values, file parts as arrays of file nodes.
 */
export async function readRunInput(workspaceId: string, request: RunInputRequest): Promise<unknown> {
  void workspaceId;
  const mediaType = request.contentType?.split(';')[0]!.trim().toLowerCase();
  const raw = await readLimited(request.stream, maximumJsonRunInputBytes);
  if (raw.length === 0) return null;
  if (mediaType !== 'application/json' && mediaType !== undefined && !mediaType.endsWith('+json')) {
    throw new UnsupportedMediaTypeError('Send the run input as application/json or multipart/form-data.');
  }
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    throw new InvalidRequestError('The request body is not valid JSON.');
  }
}

async function readLimited(stream: Readable, limitBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    total += buffer.length;
    if (total > limitBytes) {
      stream.destroy();
      throw new PayloadTooLargeError(`A JSON run input is at most ${limitBytes} bytes; send large content as a file part.`);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}
