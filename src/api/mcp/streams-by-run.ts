import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RunId } from '../../domain/gate/ids.js';

/** This process's open notice streams (`GET /mcp`), by the run each serves. */
export class StreamsByRun {
  private readonly streams = new Map<RunId, Set<McpServer>>();

  add(runId: RunId, stream: McpServer): void {
    let set = this.streams.get(runId);
    if (!set) {
      set = new Set();
      this.streams.set(runId, set);
    }
    set.add(stream);
  }

  delete(runId: RunId, stream: McpServer): void {
    const set = this.streams.get(runId);
    set?.delete(stream);
    if (set?.size === 0) this.streams.delete(runId);
  }

  /** The runs with a stream open. */
  runs(): RunId[] {
    return [...this.streams.keys()];
  }

  of(runId: RunId): McpServer[] {
    return [...(this.streams.get(runId) ?? [])];
  }

  get size(): number {
    return this.streams.size;
  }

  clear(): void {
    this.streams.clear();
  }
}
