import { render } from 'preact';
import { useMemo, useRef, useState } from 'preact/hooks';
import { answerOf, ApiError, consoleApi, type ConsoleApi } from './api-client.ts';
import { defaultApiUrl, forgetSession, loadSession, saveSession, type ConsoleSession } from './session.ts';
import { hrefOf, useRoute, type ConsoleRoute } from './routing.ts';
import { ExtractionsList } from './views/extractions-list.tsx';
import { ExtractionDetail } from './views/extraction-detail.tsx';
import { RunsList } from './views/runs-list.tsx';
import { RunDetail } from './views/run-detail.tsx';
import { EventsList } from './views/events-list.tsx';
import { EventDetail } from './views/event-detail.tsx';

function ConsoleApp() {
  const [session, setSession] = useState<ConsoleSession | undefined>(loadSession);
  const route = useRoute();
  const api = useMemo(() => (session ? consoleApi(session) : undefined), [session]);
  if (!api) {
    return (
      <SignIn
        onSignIn={(entered) => {
          saveSession(entered);
          setSession(entered);
        }}
      />
    );
  }
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Paperflow</span>
        <nav aria-label="Sections">
          <SectionLink route={route} to={{ view: 'extractions' }} label="Extractions" />
          <SectionLink route={route} to={{ view: 'runs' }} label="Runs" />
          <SectionLink route={route} to={{ view: 'events' }} label="Events" />
        </nav>
        <button
          type="button"
          class="sign-out"
          onClick={() => {
            forgetSession();
            setSession(undefined);
          }}
        >
          Forget key
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <RouteView api={api} route={route} />
      </main>
    </>
  );
}

function RouteView({ api, route }: { api: ConsoleApi; route: ConsoleRoute }) {
  switch (route.view) {
    case 'extractions':
      return <ExtractionsList api={api} />;
    case 'extraction':
      return <ExtractionDetail api={api} id={route.id} key={route.id} />;
    case 'runs':
      return <RunsList api={api} />;
    case 'run':
      return <RunDetail api={api} id={route.id} key={route.id} />;
    case 'events':
      return <EventsList api={api} />;
    case 'event':
      return <EventDetail api={api} id={route.id} key={route.id} />;
  }
}

function SectionLink({ route, to, label }: { route: ConsoleRoute; to: ConsoleRoute; label: string }) {
  const current = route.view.startsWith(to.view.replace(/s$/, ''));
  return (
    <a href={hrefOf(to)} aria-current={current ? 'page' : undefined}>
      {label}
    </a>
  );
}

/**
 * The key is tried with a real API call before the console opens: a key the API refuses is said so
 * here, on the form, rather than as a 401 on the first list. A 403 means the key is known but lacks
 * that list's scope: it opens, and each view says what it may not read.
 */
async function signInProblem(session: ConsoleSession): Promise<string | undefined> {
  try {
    await answerOf(consoleApi(session).GET('/document-insights/extractions', { params: { query: { size: 1 } } }));
    return undefined;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.status === 403) return undefined;
    if (error.status === 401) return 'This API key was not accepted: check that it is complete and has not been revoked.';
    if (error.status === 0) return `The API at ${session.apiUrl} could not be reached: check the API URL.`;
    return `The API answered ${error.code}: ${error.message}${error.requestId ? ` (request ${error.requestId})` : ''}`;
  }
}

function SignIn({ onSignIn }: { onSignIn(session: ConsoleSession): void }) {
  const [apiKey, setApiKey] = useState('');
  const [apiUrl, setApiUrl] = useState(defaultApiUrl());
  const [checking, setChecking] = useState(false);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const keyInput = useRef<HTMLInputElement>(null);
  return (
    <main id="main" class="sign-in">
      <h1>Paperflow review console</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const entered = { apiKey: apiKey.trim(), apiUrl: apiUrl.trim().replace(/\/+$/, '') };
          setChecking(true);
          setProblem(undefined);
          signInProblem(entered).then(
            (found) => {
              setChecking(false);
              if (found === undefined) return onSignIn(entered);
              setProblem(found);
              keyInput.current?.focus();
            },
            (error: unknown) => {
              setChecking(false);
              setProblem(`The key could not be checked: ${(error as Error).message}`);
            },
          );
        }}
      >
        <label>
          API key
          <input
            ref={keyInput}
            type="password"
            name="apiKey"
            autocomplete="off"
            required
            value={apiKey}
            aria-invalid={problem !== undefined}
            aria-describedby={problem !== undefined ? 'sign-in-problem' : undefined}
            onInput={(event) => setApiKey(event.currentTarget.value)}
          />
        </label>
        <p class="hint">Kept in this tab only (session storage); closing the tab forgets it.</p>
        <label>
          API URL
          <input type="url" name="apiUrl" required value={apiUrl} onInput={(event) => setApiUrl(event.currentTarget.value)} />
        </label>
        {problem !== undefined ? (
          <p id="sign-in-problem" class="notice notice-error" role="alert">
            {problem}
          </p>
        ) : null}
        <button type="submit" disabled={checking}>
          {checking ? 'Checking the key…' : 'Open the console'}
        </button>
      </form>
    </main>
  );
}

render(<ConsoleApp />, document.getElementById('console')!);
