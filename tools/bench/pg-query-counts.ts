/** The line a measured process prints with its pg query counts (see pg-round-trips.ts). */
export interface PgQueryCounts {
  /** Queries whose answer the client awaited before sending the next: one round trip each. */
  waited: number;
  /** Queries sent by a client in pg's pipeline mode, several to a round trip. */
  pipelined: number;
}

export const countsLine = (c: PgQueryCounts) =>
  `pg queries: ${c.waited} waited, ${c.pipelined} pipelined`;

export function parseCountsLine(line: string): PgQueryCounts | undefined {
  const match = /^pg queries: (\d+) waited, (\d+) pipelined$/.exec(line);
  return match ? { waited: Number(match[1]), pipelined: Number(match[2]) } : undefined;
}
