import type { ConsoleSession } from './session.ts';

/** An answer in the API's error envelope (or a network failure), with what a user needs to report it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | undefined,
  ) {
    super(message);
  }
}

export interface Page<T> {
  data: T[];
  pageInfo: { page: number; size: number; totalItems: number; totalPages: number };
}

/** The public API, exactly as a customer calls it: the console has no other way in. */
export class ApiClient {
  constructor(private readonly session: ConsoleSession) {}

  async get<T>(path: string): Promise<T> {
    return this.send<T>('GET', path);
  }

  async post<T>(path: string, body?: unknown): Promise<T> {
    return this.send<T>('POST', path, body);
  }

  private async send<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { authorization: `api-key ${this.session.apiKey}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${this.session.apiUrl}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    } catch {
      throw new ApiError(0, 'NETWORK', 'The API could not be reached.', undefined);
    }
    const text = await response.text();
    if (!response.ok) throw errorOf(response.status, text, response.headers.get('x-request-id') ?? undefined);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /**
   * POST /document-insights/extractions/upload through XMLHttpRequest, whose upload progress events
   * fetch does not offer. Labels go first so the service stores the file while it arrives.
   */
  upload<T>(file: File, labels: Record<string, string>, onProgress: (fraction: number) => void): Promise<T> {
    const form = new FormData();
    if (Object.keys(labels).length > 0) form.append('labels', JSON.stringify(labels));
    form.append('file', file, file.name);
    return new Promise<T>((resolve, reject) => {
      const request = new XMLHttpRequest();
      request.open('POST', `${this.session.apiUrl}/document-insights/extractions/upload`);
      request.setRequestHeader('authorization', `api-key ${this.session.apiKey}`);
      request.setRequestHeader('accept', 'application/json');
      request.upload.addEventListener('progress', (event) => {
        if (event.lengthComputable) onProgress(event.loaded / event.total);
      });
      request.addEventListener('load', () => {
        if (request.status >= 200 && request.status < 300) resolve(JSON.parse(request.responseText) as T);
        else reject(errorOf(request.status, request.responseText, request.getResponseHeader('x-request-id') ?? undefined));
      });
      request.addEventListener('error', () => reject(new ApiError(0, 'NETWORK', 'The upload could not reach the API.', undefined)));
      request.send(form);
    });
  }
}

function errorOf(status: number, text: string, requestId: string | undefined): ApiError {
  try {
    const { error } = JSON.parse(text) as { error?: { code?: string; message?: string; requestId?: string } };
    return new ApiError(status, error?.code ?? 'ERROR', error?.message ?? `HTTP ${status}`, error?.requestId ?? requestId);
  } catch {
    return new ApiError(status, 'ERROR', text.trim() || `HTTP ${status}`, requestId);
  }
}
