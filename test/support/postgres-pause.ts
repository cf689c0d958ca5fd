import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { clusterDataDir } from '../../tools/devstack/postgres-cluster.js';
import type { StackProfile } from '../../tools/devstack/stack-config.js';

/** The processes whose parent is `parent`, from /proc. */
function childrenOf(parent: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent;
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

/**
 * Pauses every process of the profile's PostgreSQL cluster (SIGSTOP), the postmaster first so it
 * forks no more: a server that accepts connections and answers nothing, as behind a partition or
 * on a hung disk. Returns what resumes them.
 */
export function pausePostgres(profile: StackProfile): () => void {
  const pidFile = path.join(clusterDataDir(profile), 'postmaster.pid');
  const postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  process.kill(postmaster, 'SIGSTOP');
  const paused = [postmaster, ...childrenOf(postmaster)];
  for (const pid of paused.slice(1)) process.kill(pid, 'SIGSTOP');
  return () => {
    for (const pid of paused.reverse()) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // ended while paused
      }
    }
  };
}
