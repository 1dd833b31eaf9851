import type { ServerResponse } from 'node:http';
import { MethodNotAllowedError, NotFoundError } from '../platform/errors.ts';
import { buildConsoleFiles, consoleContentSecurityPolicy, consolePathPrefix, type ConsoleFile } from './console-bundle.ts';

export interface ConsoleSite {
  /** True when `pathname` is the console's: the gateway then leaves the request to `serve`. */
  owns(pathname: string): boolean;
  serve(method: string, pathname: string, response: ServerResponse): void;
}

/**
 * The review console as the local stack serves it at /console/. The files are built in memory on the
 * first request (the stacks of tests that never open the console do not pay for it) and looked up by
 * exact name, so no request path ever reaches the filesystem: `..` and encoded slashes find nothing.
 */
export function consoleSite(options: { documentOrigins: readonly string[] }): ConsoleSite {
  let files: Map<string, ConsoleFile> | undefined;
  const securityHeaders = {
    'Content-Security-Policy': consoleContentSecurityPolicy(options.documentOrigins),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cache-Control': 'no-cache',
  };
  return {
    owns: (pathname) => pathname === consolePathPrefix || pathname.startsWith(`${consolePathPrefix}/`),
    serve(method, pathname, response) {
      if (method !== 'GET' && method !== 'HEAD') throw new MethodNotAllowedError(method, ['GET', 'HEAD']);
      // Relative URLs in the page (console.js, the worker) resolve under /console/ only with the slash.
      if (pathname === consolePathPrefix) {
        response.writeHead(308, { Location: `${consolePathPrefix}/`, ...securityHeaders });
        response.end();
        return;
      }
      files ??= new Map(buildConsoleFiles().map((file) => [file.path, file]));
      const name = pathname.slice(consolePathPrefix.length + 1) || 'index.html';
      const file = files.get(name);
      if (!file) throw new NotFoundError(`The console has no file ${name}.`);
      response.writeHead(200, { 'Content-Type': file.contentType, 'Content-Length': String(file.contents.length), ...securityHeaders });
      response.end(method === 'HEAD' ? undefined : file.contents);
    },
  };
}
