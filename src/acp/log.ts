// The core logs through this interface; the extension implements it with one LogOutputChannel.
// Every line carries a `[component]` tag so a user can tell the transport from the process from a session.

export interface Logger {
  trace(message: string): void;
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

type Level = keyof Logger;
const LEVELS: readonly Level[] = ['trace', 'debug', 'info', 'warn', 'error'];

/** A logger that prefixes every line with `[component]`. */
export function tagged(logger: Logger, component: string): Logger {
  const prefix = `[${component}] `;
  const out = {} as Logger;
  for (const level of LEVELS) out[level] = (message) => logger[level](prefix + message);
  return out;
}

/** Discards everything: for callers that have nowhere to log. */
export const silentLogger: Logger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
