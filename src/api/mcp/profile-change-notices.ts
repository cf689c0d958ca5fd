import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { runProfileChanges, type RunProfileChange } from '../../application/run-profiles.js';
import type { RunId } from '../../domain/gate/ids.js';
import { runsFromProfile } from '../../store/oauth-grants.js';
import type { Pool } from '../../store/pool.js';
import { StreamsByRun } from './streams-by-run.js';

/**
 * The open notice streams (`GET /mcp`) of runs an OAuth authorization made from a run profile:
 * when the profile changes (here, in this process) each is sent
 * `notifications/tools/list_changed`. The run keeps what it froze, so its own list is the same;
 * the notice tells the client that authorizing again would now give another set.
 */
export class ProfileChangeNotices {
  private readonly streams = new StreamsByRun();
  private readonly listener = (change: RunProfileChange) => void this.tell(change);

  constructor(private readonly pool: Pool) {
    runProfileChanges.on('change', this.listener);
  }

  /** Tells the stream until the returned function is called (its connection closed). */
  add(runId: RunId, stream: McpServer): () => void {
    this.streams.add(runId, stream);
    return () => {
      this.streams.delete(runId, stream);
    };
  }

  close(): void {
    runProfileChanges.off('change', this.listener);
    this.streams.clear();
  }

  private async tell(change: RunProfileChange): Promise<void> {
    if (this.streams.size === 0) return;
    try {
      for (const runId of await runsFromProfile(
        this.pool,
        change.profile_id,
        this.streams.runs(),
      )) {
        for (const stream of this.streams.of(runId)) stream.sendToolListChanged();
      }
    } catch {
      // PostgreSQL away: a notice is a courtesy, the run's tools are what they froze.
    }
  }
}
