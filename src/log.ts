// The core's Logger on VS Code's LogOutputChannel "ACP". The channel adds time and level; components tag their lines.
import type * as vscode from 'vscode';
import type { Logger } from './acp/log';
import type { LineTracer } from './acp/transport';
import type { TraceSetting } from './config';

export function channelLogger(channel: vscode.LogOutputChannel): Logger {
  return {
    trace: (m) => channel.trace(m),
    debug: (m) => channel.debug(m),
    info: (m) => channel.info(m),
    warn: (m) => channel.warn(m),
    error: (m) => channel.error(m),
  };
}

/** Longest traced line kept whole; a 5 MB file read would otherwise make the log unusable. */
const MAX_TRACE_CHARS = 8000;

/** Logs every NDJSON line to and from the agent while `acp.trace` is "messages". */
export function messageTracer(log: Logger, setting: () => TraceSetting): LineTracer {
  return (direction, line) => {
    if (setting() !== 'messages') return;
    const shown = line.length > MAX_TRACE_CHARS ? `${line.slice(0, MAX_TRACE_CHARS)}… (${line.length - MAX_TRACE_CHARS} more characters)` : line;
    log.info(`${direction === 'sent' ? '→' : '←'} ${shown}`);
  };
}
