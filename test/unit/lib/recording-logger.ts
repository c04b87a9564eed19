// A Logger that keeps every line, so tests can assert on what a user would read in the log.
import type { Logger } from '../../../src/acp/log';

export type Level = keyof Logger;

export interface LogLine {
  readonly level: Level;
  readonly message: string;
}

export class RecordingLogger implements Logger {
  readonly lines: LogLine[] = [];

  trace(message: string): void {
    this.lines.push({ level: 'trace', message });
  }
  debug(message: string): void {
    this.lines.push({ level: 'debug', message });
  }
  info(message: string): void {
    this.lines.push({ level: 'info', message });
  }
  warn(message: string): void {
    this.lines.push({ level: 'warn', message });
  }
  error(message: string): void {
    this.lines.push({ level: 'error', message });
  }

  /** Lines whose message contains `text` (or matches it), at `level` if given. */
  find(text: string | RegExp, level?: Level): LogLine[] {
    return this.lines.filter(
      (l) => (level === undefined || l.level === level) && (typeof text === 'string' ? l.message.includes(text) : text.test(l.message)),
    );
  }

  /** Everything, one line each: for assertion messages. */
  toString(): string {
    return this.lines.map((l) => `${l.level}: ${l.message}`).join('\n');
  }
}
