import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time of processes from /proc/<pid>/stat (Linux). utime+stime count every thread of the process (a Node
 * service's libuv pool and GC threads included). For the PostgreSQL cluster: the postmaster and its live
 * children (found by ppid), plus the postmaster's cutime+cstime, which hold the CPU of children it has already
 * reaped — so a backend or autovacuum worker that exits during a phase is still counted.
 */
let ticksPerSecond: number | undefined;

export function clockTicksPerSecond(): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return ticksPerSecond;
}

interface Stat {
  readonly ppid: number;
  readonly utime: number;
  readonly stime: number;
  readonly cutime: number;
  readonly cstime: number;
}

function readStat(pid: number, tid?: number): Stat | undefined {
  let text: string;
  try {
    text = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
  } catch {
    return undefined; // exited meanwhile
  }
  // The command name (field 2) may contain spaces and parentheses: fields after the last ')' are positional.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): ppid = field 4, utime 14, stime 15, cutime 16, cstime 17.
  return {
    ppid: Number(fields[1]),
    utime: Number(fields[11]),
    stime: Number(fields[12]),
    cutime: Number(fields[13]),
    cstime: Number(fields[14]),
  };
}

const toMs = (ticks: number): number => (ticks * 1000) / clockTicksPerSecond();

/** CPU ms (user + system) a process has used so far, all threads; NaN when it is gone. */
export function processCpuMs(pid: number): number {
  const stat = readStat(pid);
  return stat ? toMs(stat.utime + stat.stime) : Number.NaN;
}

/** CPU ms of one thread of a process (its main thread: `tid` = `pid`); NaN when it is gone. */
export function threadCpuMs(pid: number, tid = pid): number {
  const stat = readStat(pid, tid);
  return stat ? toMs(stat.utime + stat.stime) : Number.NaN;
}

/** CPU ms of a PostgreSQL cluster: postmaster (own + reaped children) and every live child of it. */
export function clusterCpuMs(postmasterPid: number): number {
  const postmaster = readStat(postmasterPid);
  if (!postmaster) return Number.NaN;
  let ticks = postmaster.utime + postmaster.stime + postmaster.cutime + postmaster.cstime;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat && stat.ppid === postmasterPid) ticks += stat.utime + stat.stime;
  }
  return toMs(ticks);
}

/** Starts a CPU sample; `stop()` returns the ms used in between. */
export function cpuMeter(read: () => number): { stop(): number } {
  const before = read();
  return { stop: () => read() - before };
}

/** The machine's CPU time in jiffies from /proc/stat's `cpu` line: all of it, and the part the host stole. */
export interface MachineJiffies {
  readonly total: number;
  readonly steal: number;
}

/** The machine's CPU time since boot (all cores), total and busy (user, nice, system, irq, softirq, steal), in jiffies. */
export function machineBusyJiffies(): { readonly total: number; readonly busy: number } | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const fields = [user, nice, system, idle, iowait, irq, softirq, steal];
    if (fields.some((f) => f === undefined || !Number.isFinite(f))) return null;
    return { total: fields.reduce((a, b) => a! + b!, 0)!, busy: user! + nice! + system! + irq! + softirq! + steal! };
  } catch {
    return null; // not Linux
  }
}

export function machineJiffies(): MachineJiffies | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
    // cpu user nice system idle iowait irq softirq steal guest guest_nice (guest time is inside user already).
    const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
    if (fields.length < 8 || fields.some((f) => !Number.isFinite(f))) return null;
    return { total: fields.reduce((a, b) => a + b, 0), steal: fields[7] };
  } catch {
    return null; // not Linux
  }
}

/** The share of the machine's CPU time the host stole between two readings (a VM's neighbours), in percent. */
export function stealPercent(from: MachineJiffies | null, to: MachineJiffies | null): number | null {
  if (from === null || to === null || to.total <= from.total) return null;
  return (100 * (to.steal - from.steal)) / (to.total - from.total);
}
