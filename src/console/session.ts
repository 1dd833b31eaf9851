// The API key lives in this tab's sessionStorage only: gone when the tab closes, never in a URL (the
// router keeps it out of the hash) and never logged.

const apiKeyName = 'paperflow.apiKey';
const apiUrlName = 'paperflow.apiUrl';

export interface ConsoleSession {
  apiKey: string;
  /** The API's base URL, `…/api/public/v1`. */
  apiUrl: string;
}

/** The API's base path (`/api/public/v1`), put in at build time from the route table's. */
declare const PAPERFLOW_API_BASE_PATH: string;

/** The console is served beside the API (the local stack, or CloudFront in front of both): same origin. */
export function defaultApiUrl(): string {
  return `${location.origin}${PAPERFLOW_API_BASE_PATH}`;
}

export function loadSession(): ConsoleSession | undefined {
  const apiKey = sessionStorage.getItem(apiKeyName);
  if (!apiKey) return undefined;
  return { apiKey, apiUrl: sessionStorage.getItem(apiUrlName) ?? defaultApiUrl() };
}

export function saveSession(session: ConsoleSession): void {
  sessionStorage.setItem(apiKeyName, session.apiKey);
  sessionStorage.setItem(apiUrlName, session.apiUrl);
}

export function forgetSession(): void {
  sessionStorage.removeItem(apiKeyName);
  sessionStorage.removeItem(apiUrlName);
}
