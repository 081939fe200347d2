/**
 * Where the CPU of a benchmark phase goes on this machine (Linux /proc, clock ticks of 10 ms): this process's main
 * thread, its other threads (worker threads such as the replication drain, libuv and V8 helpers), its child processes
 * (a Platform server), and the PostgreSQL server (every `postgres` process, plus what the postmaster has reaped, so a
 * backend that exits mid-phase still counts). Other users of the same server are counted too: run under the CPU lock.
 * Returns null where /proc is not readable.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface CpuSample {
  main: number;
  threads: number;
  children: number;
  postgres: number;
}

const TICK_MS = 10;

interface Stat {
  pid: number;
  comm: string;
  ppid: number;
  /** utime + stime, ticks. */
  own: number;
  /** cutime + cstime of reaped children, ticks. */
  reaped: number;
}

function readStat(file: string): Stat | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const close = text.lastIndexOf(')');
  const comm = text.slice(text.indexOf('(') + 1, close);
  const fields = text.slice(close + 2).split(' ');
  // fields[0] is state (field 3); utime is field 14 -> index 11.
  return {
    pid: Number(text.slice(0, text.indexOf(' '))),
    comm,
    ppid: Number(fields[1]),
    own: Number(fields[11]) + Number(fields[12]),
    reaped: Number(fields[13]) + Number(fields[14]),
  };
}

/** A sample in milliseconds of CPU, or null without /proc. */
export function sampleCpu(): CpuSample | null {
  const self = readStat('/proc/self/stat');
  if (!self) return null;
  let main = 0;
  let threads = 0;
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readStat(`/proc/self/task/${tid}/stat`);
    if (!stat) continue;
    if (stat.pid === self.pid) main += stat.own;
    else threads += stat.own;
  }
  const all: Stat[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(`/proc/${name}/stat`);
    if (stat) all.push(stat);
  }
  const descendants = new Set<number>([self.pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const stat of all) {
      if (!descendants.has(stat.pid) && descendants.has(stat.ppid)) {
        descendants.add(stat.pid);
        grew = true;
      }
    }
  }
  let children = 0;
  let postgres = 0;
  for (const stat of all) {
    if (stat.pid !== self.pid && descendants.has(stat.pid)) children += stat.own + stat.reaped;
    if (stat.comm === 'postgres' || stat.comm.startsWith('postgres:')) {
      postgres += stat.own;
      if (stat.ppid === 1 || !all.some((s) => s.pid === stat.ppid && s.comm === 'postgres')) postgres += stat.reaped;
    }
  }
  return { main: main * TICK_MS, threads: threads * TICK_MS, children: children * TICK_MS, postgres: postgres * TICK_MS };
}

/**
 * CPU (user + system of all its threads, milliseconds) and resident set of one process by its id, or null when
 * /proc cannot tell (another OS, the process ended). For a server measured from the process that drives it.
 */
export function processUsage(pid: number): { cpuMs: number; rssBytes: number } | null {
  const stat = readStat(`/proc/${pid}/stat`);
  if (!stat) return null;
  let rss: number;
  try {
    rss = Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) * 1024;
  } catch {
    return null;
  }
  return { cpuMs: stat.own * TICK_MS, rssBytes: rss };
}

/** `after - before`, each field. */
export function cpuSince(before: CpuSample | null, after: CpuSample | null): CpuSample | null {
  if (!before || !after) return null;
  return {
    main: after.main - before.main,
    threads: after.threads - before.threads,
    children: after.children - before.children,
    postgres: after.postgres - before.postgres,
  };
}

/** Sum of samples. */
export function addCpu(a: CpuSample | null, b: CpuSample | null): CpuSample | null {
  if (!a || !b) return a ?? b;
  return { main: a.main + b.main, threads: a.threads + b.threads, children: a.children + b.children, postgres: a.postgres + b.postgres };
}
