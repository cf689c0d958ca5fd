import type { ThinkingOrigin } from '../domain/budget/thinking-origins.js';
import type { Queryable } from './pool.js';

/** Records the thinking blocks a response produced, with the output tokens it reported. */
export async function recordThinkingBlocks(
  db: Queryable,
  entry: { workspaceId: string; reservationId: string; outputTokens: number; digests: string[] },
): Promise<void> {
  if (entry.digests.length === 0) return;
  await db.query(
    `insert into model_thinking_blocks (digest, workspace_id, reservation_id, output_tokens)
     select digest, $2, $3, $4 from unnest($1::text[]) as digest
     on conflict (digest) do nothing`,
    [[...new Set(entry.digests)], entry.workspaceId, entry.reservationId, entry.outputTokens],
  );
}

/** Where the named blocks came from, among those produced for this workspace. */
export async function findThinkingOrigins(
  db: Queryable,
  workspaceId: string,
  digests: readonly string[],
): Promise<Map<string, ThinkingOrigin>> {
  if (digests.length === 0) return new Map();
  const { rows } = await db.query<{
    digest: string;
    reservation_id: string;
    output_tokens: number;
  }>(
    `select digest, reservation_id, output_tokens from model_thinking_blocks
     where workspace_id = $1 and digest = any($2::text[])`,
    [workspaceId, [...new Set(digests)]],
  );
  return new Map(
    rows.map((row) => [
      row.digest,
      { response: row.reservation_id, outputTokens: row.output_tokens },
    ]),
  );
}
