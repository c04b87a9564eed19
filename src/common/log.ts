// The core's Logger on VS Code's LogOutputChannel "ACP". The channel adds time and level; components tag their lines.
// Every line is scrubbed of known secret values first, and what the channel keeps also goes to a ring of recent lines
// for "ACP: Export Diagnostics". Lines are cut to MAX_LOG_LINE_CHARS, and repeated warnings and errors are
// rate-limited with a count (limitRepeats): an agent that sends a million bad messages gets a few lines, not a million.
import type * as vscode from 'vscode';
import { capLength, limitRepeats, MAX_LOG_LINE_CHARS, type DisposableLogger, type Logger } from '../acp/log';
import type { SecretScrubber } from '../acp/redact';
import { MessageTrace, type TraceLevel, type TraceOptions } from '../acp/trace';
import type { LineTracer } from '../acp/ndjsonWriter';

type Level = keyof Logger;
/** The numbers of vscode.LogLevel: a line is kept when its level is at least the channel's (Off is 0). */
const RANK: Readonly<Record<Level, number>> = { trace: 1, debug: 2, info: 3, warn: 4, error: 5 };

export interface LogSinks {
  /** Replaces known secret values in every line before it is written anywhere. */
  readonly scrubber?: SecretScrubber;
  /** Also gets every line the channel keeps (at the channel's level), with its time and level. */
  readonly recent?: { push(line: string): void };
}

export function channelLogger(channel: vscode.LogOutputChannel, sinks: LogSinks = {}): DisposableLogger {
  const { scrubber, recent } = sinks;
  const max = MAX_LOG_LINE_CHARS;
  const write = (level: Level, message: string) => {
    // Cut before scrubbing (scrubbing costs a pass per known secret), but with room to spare, so that a secret that
    // straddles the cut is still whole when it is scrubbed.
    const head = message.length > 2 * max ? message.slice(0, 2 * max) : message;
    const scrubbed = scrubber && scrubber.size > 0 ? scrubber.scrub(head) : head;
    const text = capLength(scrubbed, max, message.length - head.length);
    channel[level](text);
    const threshold: number = channel.logLevel;
    if (recent && threshold !== 0 && RANK[level] >= threshold) recent.push(`${new Date().toISOString()} [${level}] ${text}`);
  };
  return limitRepeats({
    trace: (m) => write('trace', m),
    debug: (m) => write('debug', m),
    info: (m) => write('info', m),
    warn: (m) => write('warn', m),
    error: (m) => write('error', m),
  });
}

/**
 * Traces one agent connection at the level `acp.trace` has now (read per line, so a change applies at once). With
 * `off` it returns at once: nothing is parsed or built, which keeps the flood path as fast as without a tracer.
 */
export function messageTracer(log: Logger, agent: string, level: () => TraceLevel, options?: TraceOptions): LineTracer {
  let trace: MessageTrace | undefined;
  return (direction, line) => {
    const current = level();
    if (current === 'off') return;
    trace ??= new MessageTrace(agent, options);
    log.info(trace.line(direction, line, current === 'verbose'));
  };
}
