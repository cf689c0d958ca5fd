/**
 * CPU time a process has spent, user and system, from Linux's /proc: read before and after a
 * measured batch, the difference is what the batch cost that process, every thread of it.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** The clock ticks /proc counts in (USER_HZ). */
const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

interface ProcStat {
  ppid: number;
  /** utime + stime: this process, all its threads. */
  own: number;
  /** cutime + cstime: its children that have exited and been waited for. */
  reaped: number;
}

/** /proc/<pid>/stat, or undefined once the process is gone. */
export function procStat(pid: number): ProcStat | undefined {
  return statAt(`/proc/${pid}/stat`);
}

/** A stat file of a process or of one of its threads; undefined once it is gone. */
function statAt(file: string): (ProcStat & { name: string }) | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  // The command's name is in parentheses and may hold spaces and parentheses: the fields after
  // it start past the last ')', at field 3 (state).
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const field = (n: number) => Number(fields[n - 3]);
  return {
    name: text.slice(text.indexOf('(') + 1, text.lastIndexOf(')')),
    ppid: field(4),
    own: (field(14) + field(15)) / ticksPerSecond,
    reaped: (field(16) + field(17)) / ticksPerSecond,
  };
}

/**
 * CPU seconds each thread of a process that runs now has spent, by thread id, with the thread's
 * name. A thread that has ended is in the process's time only (`cpuSeconds`).
 */
export function threadCpuSeconds(pid: number): Map<number, { name: string; seconds: number }> {
  const threads = new Map<number, { name: string; seconds: number }>();
  let ids: string[];
  try {
    ids = readdirSync(`/proc/${pid}/task`);
  } catch {
    throw new Error(`process ${pid} is gone`);
  }
  for (const id of ids) {
    const stat = statAt(`/proc/${pid}/task/${id}/stat`);
    if (stat) threads.set(Number(id), { name: stat.name, seconds: stat.own });
  }
  return threads;
}

/** CPU seconds a process has spent so far; throws when it is gone (a measured one must live). */
export function cpuSeconds(pid: number): number {
  const stat = procStat(pid);
  if (!stat) throw new Error(`process ${pid} is gone`);
  return stat.own;
}

/**
 * CPU seconds a PostgreSQL cluster has spent: the postmaster, every process it started that
 * runs now (backends, checkpointer, WAL writer, ...), and those that ended (a backend whose
 * connection closed), which the postmaster has reaped into its children's time.
 */
export function clusterCpuSeconds(postmasterPid: number): number {
  const postmaster = procStat(postmasterPid);
  if (!postmaster) throw new Error(`the postmaster ${postmasterPid} is gone`);
  let total = postmaster.own + postmaster.reaped;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (stat?.ppid === postmasterPid) total += stat.own;
  }
  return total;
}

/** The postmaster's pid, the first line of postmaster.pid in the cluster's data folder. */
export function postmasterPid(dataDir: string): number {
  const pid = Number(readFileSync(`${dataDir}/postmaster.pid`, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no postmaster.pid in ${dataDir}`);
  return pid;
}
