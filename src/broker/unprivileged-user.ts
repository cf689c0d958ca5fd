import { readFileSync } from 'node:fs';

/** A numeric user and group for a child process. */
export interface ProcessIdentity {
  uid: number;
  gid: number;
}

// Debian's and most distributions' `nobody` / `nogroup`.
const conventionalNobody: ProcessIdentity = { uid: 65534, gid: 65534 };

function nobodyInPasswd(): ProcessIdentity | undefined {
  try {
    const line = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith('nobody:'));
    const [, , uid, gid] = line?.split(':') ?? [];
    const ids = { uid: Number(uid), gid: Number(gid) };
    return Number.isInteger(ids.uid) && Number.isInteger(ids.gid) && ids.uid > 0 ? ids : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Who a photographed stdio server runs as. When this process is root: `nobody`, which can read
 * neither this process's environment (`/proc/<pid>/environ`) nor files only root may read, such
 * as the sealing key file. Otherwise undefined: the server runs as this process's own user, and
 * keeping it from this process's secrets is the operator's part (run the API as a dedicated user
 * and photograph bundles in a separate step).
 */
export function photographUser(): ProcessIdentity | undefined {
  if (process.getuid?.() !== 0) return undefined;
  return nobodyInPasswd() ?? conventionalNobody;
}
