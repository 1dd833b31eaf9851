// The run's `body` from the request of POST /workflows/{workflowId}/runs (spec, Workflows).
import type { Readable } from 'node:stream';
import type { FormUploads, ReceivedFormPart, ReceivedTextPart } from '../files/form-uploads.ts';
import { InvalidRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../platform/errors.ts';

export interface RunInputRequest {
  contentType: string | undefined;
  stream: Readable;
  declaredBodyBytes?: number;
}

export interface RunInputDependencies {
  /** Where a form's file parts are stored (the stack's files table and bucket, from src/composition/files.ts). */
  formUploads: FormUploads;
}

/** A JSON run input is kept in the run record; larger inputs belong in files. */
export const maximumJsonRunInputBytes = 256 * 1024;

/**
 * Bounds of a multipart run input. Text and JSON parts end up in the run record like a JSON input,
 * so together they get the same budget; files are stored as files, each under the `POST /files` limits.
 */
export const runInputFormLimits = { maximumFileParts: 10, maximumTextParts: 50, maximumTextBytes: maximumJsonRunInputBytes } as const;

/**
 * How deeply a JSON input (or JSON part) may nest. JSON.parse accepts far deeper values than the run's
 * later steps (storing, expressions, events) can walk without exhausting the stack, so a deeper one is
 * refused here, as a request that cannot be a run input, rather than failing the service later.
 */
export const maximumRunInputDepth = 64;

/** For the OpenAPI description of POST /workflows/{workflowId}/runs (the route row reads it). */
export const runInputDescription =
  'The body is any JSON value (at most 256 KB), none at all (the run input is then null), or multipart/form-data. ' +
  'In a form, a text part becomes body.<name> as a string; a part sent with Content-Type application/json (or +json), ' +
  'with or without a filename, becomes body.<name> as its parsed value; file parts become body.<name> as an array of file nodes ' +
  '{fileId, fileName, mimeType, size}, stored as files (GET /files/{fileId}) under the POST /files limits: 413 over 50 MB, ' +
  '415 for executables and scripts (sniffed from the content), 422 for an empty file. Several files may share a name. ' +
  'A text or JSON name may appear once and not also as a file part: otherwise 400 INVALID_REQUEST. ' +
  'A JSON part that does not parse is 400 INVALID_REQUEST, its message naming the part, like a JSON body that does not parse. ' +
  `At most ${runInputFormLimits.maximumFileParts} file parts and ${runInputFormLimits.maximumTextParts} text or JSON parts (400 beyond), ` +
  `${runInputFormLimits.maximumTextBytes / 1024} KB of text and JSON parts together (413 beyond). ` +
  'A refused request stores no file.';

/** What a run sees of a stored file part (DESIGN.md, Workflows: a file node). */
export interface FileNode {
  fileId: string;
  fileName: string;
  mimeType: string;
  size: number;
}

/**
 * The run's `body`: the JSON body as sent, `null` when there is none; for multipart/form-data, text
 * parts as strings, JSON parts as values, file parts as arrays of file nodes (one array per part name,
 * in the order sent). A name may carry several file parts, but only one text or JSON part, and not
 * both kinds: which of two values was meant is the client's to say. A refused form leaves no file.
 */
export async function readRunInput(workspaceId: string, request: RunInputRequest, dependencies: RunInputDependencies): Promise<unknown> {
  const mediaType = request.contentType?.split(';')[0]!.trim().toLowerCase();
  if (mediaType === 'multipart/form-data') {
    const uploads = dependencies.formUploads;
    const parts = await uploads.receiveForm(
      workspaceId,
      { stream: request.stream, contentType: request.contentType!, declaredBodyBytes: request.declaredBodyBytes },
      { limits: runInputFormLimits, readsAsText: isJsonMediaType, acceptParts: checkPartNames },
    );
    return formBody(parts);
  }
  const raw = await readLimited(request.stream, maximumJsonRunInputBytes);
  if (raw.length === 0) return null;
  if (mediaType !== undefined && !isJsonMediaType(mediaType)) {
    throw new UnsupportedMediaTypeError('Send the run input as application/json or multipart/form-data.');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    throw new InvalidRequestError('The request body is not valid JSON.');
  }
  if (nestingDepthExceeds(parsed, maximumRunInputDepth)) {
    throw new InvalidRequestError(`The run input nests deeper than ${maximumRunInputDepth} levels.`);
  }
  return parsed;
}

/** Whether arrays and objects nest deeper than `limit`, walked without recursion (the input may not). */
function nestingDepthExceeds(value: unknown, limit: number): boolean {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (pending.length > 0) {
    const { value: current, depth } = pending.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const element of Object.values(current)) pending.push({ value: element, depth: depth + 1 });
  }
  return false;
}

function isJsonMediaType(mediaType: string): boolean {
  const bare = mediaType.split(';')[0]!.trim().toLowerCase();
  return bare === 'application/json' || bare.endsWith('+json');
}

/**
 * Refuses, before any file is stored, what cannot become a body: a repeated text name, a name used
 * for text and for files, and a JSON part that does not parse (400, like a JSON body that does not
 * parse; the message names the part).
 */
function checkPartNames(textParts: ReceivedTextPart[], fileNames: string[]): void {
  const seen = new Set<string>();
  const files = new Set(fileNames);
  for (const part of textParts) {
    if (seen.has(part.name)) throw new InvalidRequestError(`The form has more than one text or JSON part named "${part.name}"; send it once.`);
    if (files.has(part.name)) throw new InvalidRequestError(`The form uses the name "${part.name}" for a text or JSON part and a file part; use one kind per name.`);
    seen.add(part.name);
    if (isJsonMediaType(part.mimeType)) parseJsonPart(part);
  }
}

function parseJsonPart(part: ReceivedTextPart): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(part.value) as unknown;
  } catch (error) {
    throw new InvalidRequestError(`The part "${part.name}" is declared ${part.mimeType} but is not valid JSON: ${(error as Error).message}.`);
  }
  if (nestingDepthExceeds(parsed, maximumRunInputDepth)) {
    throw new InvalidRequestError(`The part "${part.name}" nests deeper than ${maximumRunInputDepth} levels.`);
  }
  return parsed;
}

function formBody(parts: ReceivedFormPart[]): Record<string, unknown> {
  const entries = new Map<string, unknown>();
  for (const part of parts) {
    if (part.kind === 'text') {
      entries.set(part.name, isJsonMediaType(part.mimeType) ? parseJsonPart(part) : part.value);
      continue;
    }
    const nodes = (entries.get(part.name) as FileNode[] | undefined) ?? [];
    const { fileId, fileName, mimeType, size } = part.file;
    nodes.push({ fileId, fileName, mimeType, size });
    entries.set(part.name, nodes);
  }
  // fromEntries defines own properties: a part named "__proto__" stays a plain entry.
  return Object.fromEntries(entries);
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
