/**
 * A worker process's activity slots are shared by every workspace: a workspace whose MCP servers
 * stall would hold them all, and every other workspace's brokered calls would wait behind it. Each
 * workspace takes at most its share of brokered calls under way at once; a call past it waits a
 * few seconds for one of them to finish (it was allowed, perhaps by a person), then is not carried
 * out, and says so.
 */
export const defaultBrokerCallsPerWorkspace = 20;

/** How long a call past its workspace's share waits for a share before it gives up. */
export const shareWaitMs = 5_000;

type Give = () => void;

export class WorkspaceShares {
  private readonly underWay = new Map<string, number>();
  private readonly waiting = new Map<string, ((give: Give) => void)[]>();

  constructor(readonly perWorkspace: number) {}

  /** A share of the workspace's, and the function that gives it back (once); none when all are taken. */
  take(workspaceId: string): Give | undefined {
    const taken = this.underWay.get(workspaceId) ?? 0;
    if (taken >= this.perWorkspace) return undefined;
    this.underWay.set(workspaceId, taken + 1);
    return this.giver(workspaceId);
  }

  /** A share, waiting up to `ms` for one to be given back; undefined when none was. */
  async waitFor(workspaceId: string, ms: number): Promise<Give | undefined> {
    const now = this.take(workspaceId);
    if (now || ms <= 0) return now;
    return new Promise((resolve) => {
      const queue = this.waiting.get(workspaceId) ?? [];
      const handed = (give: Give) => {
        clearTimeout(timer);
        resolve(give);
      };
      const timer = setTimeout(() => {
        const left = (this.waiting.get(workspaceId) ?? []).filter((w) => w !== handed);
        if (left.length === 0) this.waiting.delete(workspaceId);
        else this.waiting.set(workspaceId, left);
        resolve(undefined);
      }, ms);
      queue.push(handed);
      this.waiting.set(workspaceId, queue);
    });
  }

  /** How many of the workspace's brokered calls are under way. */
  underWayFor(workspaceId: string): number {
    return this.underWay.get(workspaceId) ?? 0;
  }

  /** Gives the share back once: to the first call waiting for one, else to the workspace. */
  private giver(workspaceId: string): Give {
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const queue = this.waiting.get(workspaceId);
      const next = queue?.shift();
      if (queue?.length === 0) this.waiting.delete(workspaceId);
      if (next) {
        next(this.giver(workspaceId));
        return;
      }
      const left = (this.underWay.get(workspaceId) ?? 1) - 1;
      if (left === 0) this.underWay.delete(workspaceId);
      else this.underWay.set(workspaceId, left);
    };
  }
}
