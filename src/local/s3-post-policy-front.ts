import { randomUUID } from 'node:crypto';
import { Agent, createServer, request as forwardRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import busboy from 'busboy';
import { keepIdleConnectionsOpen } from './idle-connections.ts';
import { listenPreferring } from './kept-ports.ts';
import { checkFileSize, checkPostPolicy, isRefusal, type AcceptedPostPolicy, type S3Refusal } from './s3-post-policy.ts';

// The local S3 endpoint: a pass-through to s3rver, except for browser-based uploads (a POST of a
// form to a bucket), whose signed policy s3rver ignores. There S3 refuses a form posted with another
// key, an expired policy or a file out of `content-length-range`; so does this front, before the
// upload reaches s3rver, so a workspace's upload form cannot write another workspace's key locally.
// Every other request (the SDK's, pre-signed GETs) is streamed through unchanged, Host included, so
// s3rver checks their signatures as before.

export interface RunningS3Front {
  url: string;
  close(): Promise<void>;
}

export async function startS3PostPolicyFront(
  s3rverPort: number,
  secretAccessKeyOf: (accessKeyId: string) => string | undefined,
  /** The port the last start used (src/local/kept-ports.ts); a free one when undefined or taken. */
  preferredPort?: number,
): Promise<RunningS3Front> {
  const agent = new Agent({ keepAlive: true });
  const forward = (request: IncomingMessage, response: ServerResponse, body?: Buffer) => {
    const headers = { ...request.headers };
    if (body) {
      delete headers['transfer-encoding'];
      headers['content-length'] = String(body.length);
    }
    const upstream = forwardRequest({ host: '127.0.0.1', port: s3rverPort, method: request.method, path: request.url, headers, agent }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    upstream.on('error', () => (response.headersSent ? response.destroy() : refuse(response, { status: 500, code: 'InternalError', message: 'We encountered an internal error. Please try again.' })));
    // A client that goes away mid-request aborts the emulator's request too, as with s3rver alone.
    response.on('close', () => {
      if (!response.writableFinished) upstream.destroy();
    });
    if (body) upstream.end(body);
    else request.pipe(upstream);
  };

  const server: Server = createServer((request, response) => {
    const bucket = postedFormBucket(request);
    if (bucket === undefined) forward(request, response);
    else checkPostedForm(request, bucket, secretAccessKeyOf).then((verdict) => ('body' in verdict ? forward(request, response, verdict.body) : refuse(response, verdict)));
  });
  keepIdleConnectionsOpen(server);
  const port = await listenPreferring(server, preferredPort);
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The bucket of a POST Object (a form posted to `/<bucket>`, no sub-resource), else undefined. */
function postedFormBucket(request: IncomingMessage): string | undefined {
  if (request.method !== 'POST' || !/^multipart\/form-data/i.test(request.headers['content-type'] ?? '')) return undefined;
  const match = /^\/([^/?]+)\/?$/.exec(request.url ?? '');
  return match ? decodeURIComponent(match[1]!) : undefined;
}

/**
 * Reads the whole form: the fields before the file are what the policy covers (S3 ignores those
 * after it), the file's size is checked against `content-length-range`. An accepted form comes back
 * as the exact bytes to forward; once a form is refused, the rest is read and dropped, not kept.
 */
function checkPostedForm(
  request: IncomingMessage,
  bucket: string,
  secretAccessKeyOf: (accessKeyId: string) => string | undefined,
): Promise<S3Refusal | { body: Buffer }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const fields: [string, string][] = [];
    let verdict: S3Refusal | AcceptedPostPolicy | undefined;
    let fileSize: number | undefined;
    const decide = () => (verdict ??= checkPostPolicy({ bucket, fields }, secretAccessKeyOf));

    let form: busboy.Busboy;
    try {
      form = busboy({ headers: request.headers, limits: { fieldSize: 1024 * 1024 } });
    } catch {
      request.resume();
      resolve(malformedForm);
      return;
    }
    const startFile = () => {
      decide();
      fileSize = 0;
    };
    form.on('field', (name, value) => {
      if (fileSize !== undefined) return;
      // A text part named `file` is the file (S3 takes the content from the field named file).
      if (name.toLowerCase() === 'file') {
        startFile();
        fileSize = Buffer.byteLength(value);
      } else fields.push([name, value]);
    });
    form.on('file', (name, stream) => {
      if (fileSize !== undefined || name.toLowerCase() !== 'file') {
        stream.resume();
        return;
      }
      startFile();
      stream.on('data', (chunk: Buffer) => {
        fileSize! += chunk.length;
        if (!isRefusal(verdict)) verdict = checkFileSize(fileSize!, verdict!) ?? verdict;
      });
    });
    form.on('error', () => {
      request.unpipe(form);
      request.resume();
      resolve(malformedForm);
    });
    form.on('close', () => {
      if (fileSize === undefined) return resolve({ status: 400, code: 'InvalidArgument', message: 'POST requires exactly one file upload per request.' });
      const refusal = isRefusal(verdict) ? verdict : checkFileSize(fileSize, verdict!);
      resolve(refusal ?? { body: Buffer.concat(chunks) });
    });
    request.on('data', (chunk: Buffer) => {
      if (!isRefusal(verdict)) chunks.push(chunk);
      else chunks.length = 0;
    });
    request.pipe(form);
  });
}

const malformedForm: S3Refusal = { status: 400, code: 'MalformedPOSTRequest', message: 'The body of your POST request is not well-formed multipart/form-data.' };

function refuse(response: ServerResponse, refusal: S3Refusal): void {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${refusal.code}</Code><Message>${escapeXml(refusal.message)}</Message><RequestId>${randomUUID()}</RequestId></Error>`;
  response.writeHead(refusal.status, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(xml) });
  response.end(xml);
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
