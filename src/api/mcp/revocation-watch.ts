import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RunId } from '../../domain/gate/ids.js';
import type { Pool } from '../../store/pool.js';
import { revokedAmong } from '../../store/run-revocations.js';
import { StreamsByRun } from './streams-by-run.js';

/**
 * The open notice streams (`GET /mcp`) of this process, by run, and one shared look a second at
 * which of their runs were revoked (by any process): each of those streams is sent
 * `notifications/tools/list_changed` once, so its client lists again and finds nothing.
 */
export class RevocationWatch {
  private readonly streams = new StreamsByRun();
  private timer: NodeJS.Timeout | undefined;
  private looking = false;

  constructor(
    private readonly pool: Pool,
    private readonly everyMs = 1_000,
  ) {}

  /** Watches the stream until the returned function is called (its connection closed). */
  add(runId: RunId, stream: McpServer): () => void {
    this.streams.add(runId, stream);
    this.timer ??= setInterval(() => void this.look(), this.everyMs).unref();
    return () => {
      this.forget(runId, stream);
    };
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.streams.clear();
  }

  private forget(runId: RunId, stream: McpServer): void {
    this.streams.delete(runId, stream);
    if (this.streams.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private async look(): Promise<void> {
    if (this.looking || this.streams.size === 0) return;
    this.looking = true;
    try {
      for (const runId of await revokedAmong(this.pool, this.streams.runs())) {
        for (const stream of this.streams.of(runId)) {
          stream.sendToolListChanged();
          this.forget(runId, stream);
        }
      }
    } catch {
      // PostgreSQL away: the next look tries again.
    } finally {
      this.looking = false;
    }
  }
}
