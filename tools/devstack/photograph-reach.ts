import { chmodSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { photographUser } from '../../src/broker/unprivileged-user.js';
import { projectRoot } from './stack-config.js';

/** Whether `user` may enter `dir` (`test -x`, run as that user). */
function canEnter(user: { uid: number; gid: number }, dir: string): boolean {
  const probe = spawnSync('test', ['-x', dir], { uid: user.uid, gid: user.gid, stdio: 'ignore' });
  return probe.status === 0;
}

/**
 * The stack photographs stdio servers from this project's `node_modules` as `nobody` when it
 * runs as root. A project under a private folder (a home folder, a `mktemp -d` clone) would
 * refuse `nobody` the way in: the folders above the project get the traverse bit for others
 * (never read), the smallest grant that lets the photographed server start, said on stderr.
 */
export function letPhotographsReachProject(): void {
  const user = photographUser();
  if (!user || canEnter(user, projectRoot)) return;
  const ancestors: string[] = [];
  for (let dir = projectRoot; ; dir = path.dirname(dir)) {
    ancestors.unshift(dir);
    if (path.dirname(dir) === dir) break;
  }
  for (const dir of ancestors) {
    const mode = statSync(dir).mode & 0o7777;
    if ((mode & 0o001) === 0) {
      chmodSync(dir, mode | 0o001);
      process.stderr.write(
        `${dir}: others may now enter it (o+x), so stdio servers photographed as nobody can start\n`,
      );
    }
  }
}
