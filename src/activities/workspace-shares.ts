/**
 * A worker process's activity slots are shared by every workspace: a workspace whose MCP servers
 * stall would hold them all, and every other workspace's brokered calls would wait behind it. Each
 * workspace takes at most its share of brokered calls under way at once; a call past it is not
 * carried out, and says so.
 */
export const defaultBrokerCallsPerWorkspace = 20;

export class WorkspaceShares {
  private readonly underWay = new Map<string, number>();

  constructor(readonly perWorkspace: number) {}

  /** A share of the workspace's, and the function that gives it back (once); none when all are taken. */
  take(workspaceId: string): (() => void) | undefined {
    const taken = this.underWay.get(workspaceId) ?? 0;
    if (taken >= this.perWorkspace) return undefined;
    this.underWay.set(workspaceId, taken + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.underWay.get(workspaceId) ?? 1) - 1;
      if (left === 0) this.underWay.delete(workspaceId);
      else this.underWay.set(workspaceId, left);
    };
  }

  /** How many of the workspace's brokered calls are under way. */
  underWayFor(workspaceId: string): number {
    return this.underWay.get(workspaceId) ?? 0;
  }
}
