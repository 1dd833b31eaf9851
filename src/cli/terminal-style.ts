import { styleText } from 'node:util';

// Colours only where a person reads them: a terminal, without NO_COLOR (https://no-color.org) and
// not TERM=dumb. Piped output and files get plain text, so scripts never see escape codes.

export type Style = 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'cyan';

export interface OutputStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export function colorsEnabled(stream: OutputStream, environment: NodeJS.ProcessEnv): boolean {
  if (environment.NO_COLOR !== undefined && environment.NO_COLOR !== '') return false;
  if (environment.TERM === 'dumb') return false;
  return stream.isTTY === true;
}

export type Painter = (style: Style, text: string) => string;

export function painterFor(enabled: boolean): Painter {
  // styleText's own stream check is switched off: the decision above is the one that counts.
  return enabled ? (style, text) => styleText(style, text, { validateStream: false }) : (_style, text) => text;
}

/** The colour of a status word: green when it went well, red when not, yellow while under way. */
export function statusStyle(status: string): Style {
  if (['COMPLETED', 'SUCCEEDED', 'active'].includes(status)) return 'green';
  if (['FAILED', 'REJECTED', 'CLOSED'].includes(status)) return 'red';
  return 'yellow';
}
