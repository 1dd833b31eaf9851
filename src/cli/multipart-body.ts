import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';

// A multipart/form-data body whose length is known before it is sent and whose file parts stream from
// disk: the Content-Length lets API Gateway and the local gateway take it as any client's upload, and
// the bytes handed to the connection drive the progress bar. A JSON part carries its own Content-Type,
// which FormData cannot do without a file name (the API reads it as JSON: DESIGN.md, run input).

export type MultipartPart =
  | { name: string; text: string; contentType?: string }
  | { name: string; filePath: string; fileName: string; size: number; contentType?: string }
  /** A file part whose bytes are in memory (a sample made for the request). */
  | { name: string; content: Uint8Array; fileName: string; contentType?: string };

export interface MultipartBody {
  contentType: string;
  contentLength: number;
  /** A fresh stream of the whole body (a retried request sends it again). */
  stream(onBytes?: (sentBytes: number) => void): ReadableStream<Uint8Array>;
}

function quoted(value: string): string {
  // Quotes, backslashes and line breaks would end the header value early.
  return `"${value.replace(/["\\\r\n]/g, (character) => encodeURIComponent(character))}"`;
}

export function multipartBody(parts: MultipartPart[]): MultipartBody {
  const boundary = `----paperflow-cli-${randomBytes(12).toString('hex')}`;
  const pieces = parts.map((part, index) => {
    const isFile = 'fileName' in part;
    const disposition = `Content-Disposition: form-data; name=${quoted(part.name)}${isFile ? `; filename=${quoted(part.fileName)}` : ''}`;
    const type = part.contentType ?? (isFile ? 'application/octet-stream' : undefined);
    const head = Buffer.from(`${index === 0 ? '' : '\r\n'}--${boundary}\r\n${disposition}\r\n${type ? `Content-Type: ${type}\r\n` : ''}\r\n`);
    if ('filePath' in part) return { head, file: { path: part.filePath, size: part.size } };
    return { head, content: 'content' in part ? Buffer.from(part.content) : Buffer.from(part.text) };
  });
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const contentLength = pieces.reduce((sum, piece) => sum + piece.head.length + (piece.content ? piece.content.length : piece.file.size), tail.length);

  async function* chunks(onBytes: (sentBytes: number) => void): AsyncGenerator<Uint8Array> {
    let sent = 0;
    const counted = (chunk: Buffer) => {
      sent += chunk.length;
      onBytes(sent);
      return chunk;
    };
    for (const piece of pieces) {
      yield counted(piece.head);
      if (piece.content) yield counted(piece.content);
      else for await (const chunk of createReadStream(piece.file.path)) yield counted(chunk as Buffer);
    }
    yield counted(tail);
  }

  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength,
    stream: (onBytes = () => {}) => ReadableStream.from(chunks(onBytes)) as ReadableStream<Uint8Array>,
  };
}
