import { render } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import { ApiClient } from './api-client.ts';
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
  const api = useMemo(() => (session ? new ApiClient(session) : undefined), [session]);
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

function RouteView({ api, route }: { api: ApiClient; route: ConsoleRoute }) {
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

function SignIn({ onSignIn }: { onSignIn(session: ConsoleSession): void }) {
  const [apiKey, setApiKey] = useState('');
  const [apiUrl, setApiUrl] = useState(defaultApiUrl());
  return (
    <main id="main" class="sign-in">
      <h1>Paperflow review console</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          onSignIn({ apiKey: apiKey.trim(), apiUrl: apiUrl.trim().replace(/\/+$/, '') });
        }}
      >
        <label>
          API key
          <input type="password" name="apiKey" autocomplete="off" required value={apiKey} onInput={(event) => setApiKey(event.currentTarget.value)} />
        </label>
        <p class="hint">Kept in this tab only (session storage); closing the tab forgets it.</p>
        <label>
          API URL
          <input type="url" name="apiUrl" required value={apiUrl} onInput={(event) => setApiUrl(event.currentTarget.value)} />
        </label>
        <button type="submit">Open the console</button>
      </form>
    </main>
  );
}

render(<ConsoleApp />, document.getElementById('console')!);
