import { bodyOf, PaperflowApiError, type SuccessBody, type TypedCallResult } from '../client/api-answers.ts';
import { createPaperflowClient, type PaperflowClient } from '../client/paperflow-client.ts';
import type { ConsoleSession } from './session.ts';

// The public API through the typed client (src/client), exactly as a customer calls it: the console
// has no other way in. A view calls `answerOf(api.GET(...))`: the answer's body, typed by the
// operation, or an ApiError with what a user needs to report it.

export { PaperflowApiError as ApiError } from '../client/api-answers.ts';
export type ConsoleApi = PaperflowClient;

/** The typed client for the session's key and URL; a request that reaches nothing fails as an ApiError with status 0. */
export function consoleApi(session: ConsoleSession): ConsoleApi {
  const api = createPaperflowClient({ apiUrl: session.apiUrl, apiKey: session.apiKey });
  api.use({ onError: () => new PaperflowApiError(0, 'NETWORK', 'The API could not be reached.', undefined) });
  return api;
}

/** A typed call's success body, or its error envelope thrown as an ApiError. */
export async function answerOf<Result extends TypedCallResult>(call: Promise<Result>): Promise<SuccessBody<Result>> {
  return bodyOf(await call);
}

/**
 * A fetch for one request that tells `onProgress` how much of its body was sent: fetch has no upload
 * progress in browsers, XMLHttpRequest has. Given as that call's `fetch`, so the typed client still
 * builds the request (path, key, form) and reads the answer.
 */
export function fetchReportingUpload(onProgress: (fraction: number) => void): typeof fetch {
  return async (input) => {
    const request = input instanceof Request ? input : new Request(input);
    // The form as the bytes fetch would send, its boundary in the request's Content-Type.
    const body = await request.blob();
    return new Promise<Response>((resolve, reject) => {
      const upload = new XMLHttpRequest();
      upload.open(request.method, request.url);
      request.headers.forEach((value, name) => upload.setRequestHeader(name, value));
      upload.responseType = 'text';
      upload.upload.addEventListener('progress', (event) => {
        if (event.lengthComputable) onProgress(event.loaded / event.total);
      });
      upload.addEventListener('load', () => resolve(new Response(upload.status === 204 ? null : upload.responseText, { status: upload.status, headers: responseHeadersOf(upload) })));
      upload.addEventListener('error', () => reject(new TypeError('The upload could not reach the API.')));
      upload.send(body);
    });
  };
}

function responseHeadersOf(request: XMLHttpRequest): Headers {
  const headers = new Headers();
  for (const line of request.getAllResponseHeaders().trim().split(/[\r\n]+/)) {
    const separator = line.indexOf(':');
    if (separator > 0) headers.append(line.slice(0, separator).trim(), line.slice(separator + 1).trim());
  }
  return headers;
}
