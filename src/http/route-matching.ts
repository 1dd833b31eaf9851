import { MethodNotAllowedError, NotFoundError } from './errors.ts';
import type { HttpMethod, RouteDefinition } from './route-table.ts';

export interface RouteMatch {
  route: RouteDefinition;
  pathParameters: Record<string, string>;
}

interface CompiledRoute {
  route: RouteDefinition;
  pattern: RegExp;
  parameterNames: string[];
}

/** Matches request paths (below the base path) against the route table; 404 and 405 come from here. */
export class RouteMatcher {
  private readonly compiled: CompiledRoute[];

  constructor(routes: readonly RouteDefinition[]) {
    this.compiled = routes.map((route) => {
      const parameterNames: string[] = [];
      const source = route.path
        .split('/')
        .map((segment) => {
          const parameter = /^\{(\w+)\}$/.exec(segment);
          if (!parameter) return escapeRegExp(segment);
          parameterNames.push(parameter[1]!);
          return '([^/]+)';
        })
        .join('/');
      return { route, pattern: new RegExp(`^${source}/?$`), parameterNames };
    });
  }

  match(method: string, path: string): RouteMatch {
    const candidates = this.compiled
      .map((compiled) => ({ compiled, result: compiled.pattern.exec(path) }))
      .filter((candidate) => candidate.result !== null);
    if (candidates.length === 0) throw new NotFoundError(`No operation exists at ${path}.`);
    // A literal segment beats a parameter (`/extractions/upload` before `/extractions/{id}`).
    const forMethod = candidates
      .filter((candidate) => candidate.compiled.route.method === method)
      .sort((a, b) => a.compiled.parameterNames.length - b.compiled.parameterNames.length)[0];
    if (!forMethod) {
      const allowed = [...new Set(candidates.map((candidate) => candidate.compiled.route.method))];
      throw new MethodNotAllowedError(method, allowed);
    }
    const pathParameters: Record<string, string> = {};
    forMethod.compiled.parameterNames.forEach((name, index) => {
      pathParameters[name] = decodePathSegment(forMethod.result![index + 1]!);
    });
    return { route: forMethod.compiled.route, pathParameters };
  }

  /** Methods served at an exact route path, for the deployed API's per-resource 405 answers. */
  static methodsByPath(routes: readonly RouteDefinition[]): Map<string, HttpMethod[]> {
    const byPath = new Map<string, HttpMethod[]>();
    for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route.method]);
    return byPath;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new NotFoundError('The path holds a malformed percent-encoding.');
  }
}
