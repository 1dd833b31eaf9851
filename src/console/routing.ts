import { useEffect, useState } from 'preact/hooks';

// Views live in the URL's hash (#/extractions/ext_…), so a link or a reload opens the same view; the
// hash holds resource ids only, never the API key.

export type ConsoleRoute =
  | { view: 'extractions' }
  | { view: 'extraction'; id: string }
  | { view: 'runs' }
  | { view: 'run'; id: string }
  | { view: 'events' }
  | { view: 'event'; id: string };

export function routeOf(hash: string): ConsoleRoute {
  const [section, id] = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  if (section === 'runs') return id ? { view: 'run', id } : { view: 'runs' };
  if (section === 'events') return id ? { view: 'event', id } : { view: 'events' };
  return id && section === 'extractions' ? { view: 'extraction', id } : { view: 'extractions' };
}

export function hrefOf(route: ConsoleRoute): string {
  switch (route.view) {
    case 'extractions':
      return '#/extractions';
    case 'extraction':
      return `#/extractions/${encodeURIComponent(route.id)}`;
    case 'runs':
      return '#/runs';
    case 'run':
      return `#/runs/${encodeURIComponent(route.id)}`;
    case 'events':
      return '#/events';
    case 'event':
      return `#/events/${encodeURIComponent(route.id)}`;
  }
}

export function useRoute(): ConsoleRoute {
  const [route, setRoute] = useState(() => routeOf(location.hash));
  useEffect(() => {
    const follow = () => setRoute(routeOf(location.hash));
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  return route;
}
