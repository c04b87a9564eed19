// The CPU time the processes of a benchmark spent between two readings, by kind of process: the browser's, code-server,
// the extension hosts, the agents. Read from /proc (Linux only), for `npm run bench:ui`'s BENCH_CPU: on a machine with
// few cores the processes take CPU from each other, so what the client costs the others shows here, not in its own
// timings.
import { readdirSync, readFileSync } from 'node:fs';

/** Milliseconds of CPU by kind of process. */
export type CpuByKind = Record<string, number>;

/** /proc counts CPU time in clock ticks of 1/100 s (USER_HZ) on Linux. */
const TICK_MS = 10;
const ENDED = 'ended processes';

interface Proc {
  readonly ppid: number;
  readonly kind: string;
  /** Its own CPU time so far, in ms. */
  readonly own: number;
  /** The CPU time of its children that ended and were waited for, in ms. */
  readonly ended: number;
}

/** The processes below the benchmark at one moment, by process id. */
export type CpuReading = ReadonlyMap<number, Proc>;

function readProc(pid: number): (Proc & { readonly command: string }) | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After "pid (comm) ": state ppid … utime(14) stime(15) cutime(16) cstime(17), counted from 1 across the line.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const n = (i: number) => Number(fields[i - 3]);
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    return { ppid: n(4), kind: kindOf(command), own: (n(14) + n(15)) * TICK_MS, ended: (n(16) + n(17)) * TICK_MS, command };
  } catch {
    return undefined; // it ended meanwhile
  }
}

function kindOf(command: string): string {
  const type = /--type=([\w-]+)/.exec(command)?.[1];
  if (type === 'extensionHost') return 'extension host';
  if (/\bchrom(e|ium)\b|headless_shell/.test(command)) return type ? `browser ${type.replace('-process', '')}` : 'browser';
  if (type) return `code-server ${type}`;
  if (/code-server/.test(command) && /entry\.js/.test(command)) return 'code-server';
  if (/code-server/.test(command)) return 'code-server helpers';
  return 'agents and tools';
}

/** The processes below `root` (this process by default) now. */
export function readCpu(root = process.pid): CpuReading {
  const all = new Map<number, Proc>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const proc = readProc(Number(name));
    if (proc) all.set(Number(name), proc);
  }
  const below = (pid: number): boolean => {
    for (let p = all.get(pid)?.ppid, hops = 0; p !== undefined && hops < 64; p = all.get(p)?.ppid, hops++) if (p === root) return true;
    return false;
  };
  return new Map([...all].filter(([pid]) => below(pid)));
}

/**
 * What the processes spent from `before` to `after`, by kind, and in all. A process that ended meanwhile (git, an
 * agent) shows only in its parent's count of ended children, with what it had spent before `before` too: that part
 * is taken back, so each millisecond counts once, in the window.
 */
export function cpuSpent(before: CpuReading, after: CpuReading): { total: number; byKind: CpuByKind } {
  const byKind: CpuByKind = {};
  const add = (kind: string, ms: number) => (byKind[kind] = (byKind[kind] ?? 0) + ms);
  for (const [pid, proc] of after) {
    const was = before.get(pid);
    add(proc.kind, proc.own - (was?.own ?? 0));
    add(ENDED, proc.ended - (was?.ended ?? 0));
  }
  // Linux adds an ended process's own time and its own ended children's to its parent's count.
  for (const [pid, proc] of before) if (!after.has(pid)) add(ENDED, -(proc.own + proc.ended));
  let total = 0;
  for (const [kind, ms] of Object.entries(byKind)) {
    total += ms;
    if (ms <= 0) delete byKind[kind];
  }
  return { total, byKind };
}

/** Whether readCpu works here. */
export const cpuReadable = process.platform === 'linux';
