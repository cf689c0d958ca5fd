import type pg from 'pg';
import { inputTokenBound } from '../../src/domain/budget/input-token-bound.js';
import { modelInputSchema } from '../../src/domain/budget/model-input-schema.js';
import type { TestApi } from '../support/api.js';

type Runner = { session_id: string; session_token: string };

/** A small request in the Messages shape: a system prompt, a tool and one turn of tool use. */
export function modelInput(text = 'Summarise the change.') {
  return {
    system: 'You are a careful reviewer.',
    messages: [
      { role: 'user', content: text },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'tu1', name: 'Read', input: { file_path: 'a.ts' } }],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'tu1', content: 'export const a = 1;' }],
      },
    ],
    tools: [
      {
        name: 'Read',
        description: 'Reads a file.',
        input_schema: { type: 'object', properties: { file_path: { type: 'string' } } },
      },
    ],
  };
}

/** A model request's admission body: `max_output_tokens` on top of `input`'s bound. */
export function modelRequest(requestId: string, maxOutputTokens: number, input = modelInput()) {
  return {
    request_id: requestId,
    model: 'claude-sonnet-4-5',
    max_output_tokens: maxOutputTokens,
    input,
  };
}

/** What the gate will book for `input`: computed by the same bound function it uses. */
export function boundOf(input: unknown): number {
  return inputTokenBound(modelInputSchema.parse(input));
}

export function admit(api: TestApi, run: Runner, body: Record<string, unknown>) {
  return api.call('POST', `/v1/sessions/${run.session_id}/model-requests`, {
    token: run.session_token,
    body,
  });
}

export function reportUsage(
  api: TestApi,
  run: Runner,
  requestId: string,
  body: Record<string, unknown>,
) {
  return api.call('POST', `/v1/sessions/${run.session_id}/model-requests/${requestId}/usage`, {
    token: run.session_token,
    body,
  });
}

export async function budgetOf(db: pg.Pool, runId: string) {
  const { rows } = await db.query(
    'select max_tokens, held_tokens, used_tokens from run_budgets where run_id = $1',
    [runId],
  );
  return rows[0] as { max_tokens: number; held_tokens: number; used_tokens: number };
}

export async function eventsOf(db: pg.Pool, sessionId: string, type?: string) {
  const { rows } = await db.query(
    `select type, data from ledger_events where stream_id = $1 and ($2::text is null or type = $2)
     order by seq`,
    [sessionId, type ?? null],
  );
  return rows as { type: string; data: Record<string, unknown> }[];
}

export async function reservationsOf(db: pg.Pool, sessionId: string) {
  const { rows } = await db.query(
    'select * from model_reservations where session_id = $1 order by created_at, id',
    [sessionId],
  );
  return rows;
}

export async function usageOf(db: pg.Pool, sessionId: string) {
  const { rows } = await db.query('select * from model_usage where session_id = $1', [sessionId]);
  return rows;
}

/** A reproducible stream of numbers in [0, 1) (a linear congruential generator), so a failing
 * round can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

export function randomInt(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}
