import { MethodNotAllowedError, NotFoundError } from '../platform/errors.ts';
import type { HttpMethod, RouteDefinition } from '../platform/route-table.ts';

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

  /**
   * As API Gateway resolves resources: the most literal route path that fits wins (`/extractions/upload`
   * over `/extractions/{extractionId}`), and only its methods count, for the match and for 405's Allow.
   * HEAD is answered by a path's GET operation.
   */
  match(method: string, path: string): RouteMatch {
    // Routes name resources by their segments; "." and ".." (also percent-encoded) name none. Resolving
    // them would make `/extractions/.` the list and `/files/../extractions` another path altogether.
    if (path.split('/').some(isDotSegment)) throw new NotFoundError(`No operation exists at ${path}: "." and ".." are not path segments here.`);
    const candidates = this.compiled
      .map((compiled) => ({ compiled, result: compiled.pattern.exec(path) }))
      .filter((candidate) => candidate.result !== null);
    if (candidates.length === 0) throw new NotFoundError(`No operation exists at ${path}.`);
    const resourcePath = candidates.map((candidate) => candidate.compiled.route.path).sort(byLiteralSegmentsFirst)[0]!;
    const atResource = candidates.filter((candidate) => candidate.compiled.route.path === resourcePath);
    const servedMethod = method === 'HEAD' ? 'GET' : method;
    const forMethod = atResource.find((candidate) => candidate.compiled.route.method === servedMethod);
    if (!forMethod) {
      throw new MethodNotAllowedError(method, atResource.map((candidate) => candidate.compiled.route.method));
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

/** Compares route paths segment by segment: at the first difference, a literal segment sorts before a `{parameter}`. */
function byLiteralSegmentsFirst(a: string, b: string): number {
  const isParameter = (segment: string | undefined) => segment !== undefined && /^\{\w+\}$/.test(segment);
  const aSegments = a.split('/');
  const bSegments = b.split('/');
  for (let index = 0; index < Math.max(aSegments.length, bSegments.length); index++) {
    const difference = Number(isParameter(aSegments[index])) - Number(isParameter(bSegments[index]));
    if (difference !== 0) return difference;
  }
  return 0;
}

function isDotSegment(segment: string): boolean {
  return /^(?:\.|%2e){1,2}$/i.test(segment);
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
