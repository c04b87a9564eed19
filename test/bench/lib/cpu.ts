// The CPU time the processes of a benchmark spent between two readings, by kind of process: the browser's, code-server,
// the extension hosts, the agents. Read from /proc (Linux only), for `npm run bench:ui`'s BENCH_CPU: on a machine with
// few cores the processes take CPU from each other, so what the client costs the others shows here, not in its own
// timings.
import { readdirSync, readFileSync } from 'node:fs';

/** Milliseconds of CPU by kind of process. */
export type CpuReading = Record<string, number>;

/** /proc counts CPU time in clock ticks of 1/100 s (USER_HZ) on Linux. */
const TICK_MS = 10;

interface Proc {
  readonly ppid: number;
  /** Its own CPU time, in ticks. */
  readonly own: number;
  /** The CPU time of its children that ended and were waited for, in ticks. */
  readonly ended: number;
  readonly command: string;
}

function readProc(pid: number): Proc | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After "pid (comm) ": state ppid … utime(14) stime(15) cutime(16) cstime(17), counted from 1 across the line.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const n = (i: number) => Number(fields[i - 3]);
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    return { ppid: n(4), own: n(14) + n(15), ended: n(16) + n(17), command };
  } catch {
    return undefined; // it ended meanwhile
  }
}

function kindOf(command: string): string {
  const type = /--type=([\w-]+)/.exec(command)?.[1];
  if (/chrom/i.test(command)) return type ? `browser ${type.replace('-process', '')}` : 'browser';
  if (type === 'extensionHost') return 'extension host';
  if (type) return `code-server ${type}`;
  if (/code-server/.test(command) && /entry\.js/.test(command)) return 'code-server';
  if (/code-server/.test(command)) return 'code-server helpers';
  return 'agents and tools';
}

/** The CPU time so far of this process's descendants (not itself), by kind. */
export function readCpu(root = process.pid): CpuReading {
  const procs = new Map<number, Proc>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const proc = readProc(Number(name));
    if (proc) procs.set(Number(name), proc);
  }
  const descends = (pid: number): boolean => {
    for (let p = procs.get(pid)?.ppid, hops = 0; p !== undefined && hops < 64; p = procs.get(p)?.ppid, hops++) if (p === root) return true;
    return false;
  };
  const reading: CpuReading = {};
  const add = (kind: string, ticks: number) => (reading[kind] = (reading[kind] ?? 0) + ticks * TICK_MS);
  for (const [pid, proc] of procs) {
    if (!descends(pid)) continue;
    add(kindOf(proc.command), proc.own);
    // A process that ended (git, a short-lived agent) shows only in its parent's count of ended children.
    add('ended processes', proc.ended);
  }
  return reading;
}

/** What each kind spent from `before` to `after`, and the total; the kinds that spent nothing are left out. */
export function cpuSpent(before: CpuReading, after: CpuReading): { total: number; byKind: CpuReading } {
  const byKind: CpuReading = {};
  let total = 0;
  for (const [kind, ms] of Object.entries(after)) {
    const spent = ms - (before[kind] ?? 0);
    if (spent <= 0) continue;
    byKind[kind] = spent;
    total += spent;
  }
  return { total, byKind };
}

/** Whether readCpu works here. */
export const cpuReadable = process.platform === 'linux';
