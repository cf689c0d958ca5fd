import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { useHarness } from '../support/harness.js';
import { createRun, toolCall, type CreatedRun } from '../support/seed.js';
import {
  allowedCommand,
  composed,
  oddText,
  otherCommand,
  rmSpellings,
} from '../support/shell-compositions.js';

// The seeded policy: reads allowed, `rm` denied by the command operator, other Bash allowed.
const h = useHarness();

// Each well-formed call is a gate workflow: three hundred keep this file near 15 s on two cores,
// while the in-process property tests run thousands more compositions through the evaluator.
const cases = 300;
const inFlight = 8;
// Below the 30 s after which the API answers 503: a call that takes this long is a hang.
const boundMs = 25_000;

/** A body whose Bash command runs `rm` somewhere: the gate must deny it. */
const deniedBody = composed(rmSpellings, fc.oneof(allowedCommand, otherCommand)).map((command) => ({
  tool: 'Bash',
  arguments: { command },
}));

/** Text PostgreSQL cannot store: a NUL, or half of a UTF-16 surrogate pair. */
const unstorableText = fc
  .tuple(oddText, fc.constantFrom('\0', '\ud800', '\udfff'), oddText)
  .map(([a, bad, b]) => a + bad + b);

const toolName = fc.oneof(
  fc.constantFrom('Bash', 'Read', 'Grep', 'WebFetch', '__proto__', 'constructor', 'hasOwnProperty'),
  oddText,
  unstorableText,
);

const argumentsShape = fc.oneof(
  fc.record({ command: fc.oneof(oddText, composed(allowedCommand, otherCommand)) }),
  fc.record({ file_path: oddText }),
  fc.record({ command: unstorableText }),
  fc.dictionary(unstorableText, oddText, { minKeys: 1, maxKeys: 2 }),
  fc.record({ command: fc.jsonValue({ maxDepth: 2 }) }),
  fc.dictionary(oddText, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
);

/** Any body a runner could send, most of them well-formed. */
const anyBody = fc.oneof(
  fc.record({ tool: toolName, arguments: argumentsShape }),
  fc.record({ tool: toolName, arguments: argumentsShape, execute: fc.boolean() }),
  fc.record({ tool: toolName, arguments: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({ tool: toolName, arguments: argumentsShape, extra: fc.jsonValue({ maxDepth: 1 }) }),
  fc.jsonValue({ maxDepth: 2 }),
);

type Case = { body: unknown; mustDeny: boolean };

const allCases = fc.oneof(
  deniedBody.map((body): Case => ({ body, mustDeny: true })),
  anyBody.map((body): Case => ({ body, mustDeny: false })),
);

/** The answer to one case, or why it fails: a 5xx, a hang, or an allowed `rm`. */
async function failureOf(run: CreatedRun, { body, mustDeny }: Case): Promise<string | null> {
  const send = toolCall(h.api, run, randomUUID(), body as Record<string, unknown>);
  const stop = new AbortController();
  const hang = sleep(boundMs, 'hang' as const, { signal: stop.signal }).catch(
    () => 'hang' as const,
  );
  const answer = await Promise.race([send, hang]).finally(() => {
    stop.abort();
  });
  const shown = JSON.stringify(body).slice(0, 300);
  if (answer === 'hang') return `no answer within ${boundMs} ms: ${shown}`;
  if (answer.status >= 500) return `${answer.status} for ${shown}: ${JSON.stringify(answer.body)}`;
  if (mustDeny && answer.status === 200 && answer.body.decision !== 'deny')
    return `rm not denied (${JSON.stringify(answer.body)}): ${shown}`;
  if (mustDeny && answer.status !== 200) return `${answer.status} for a well-formed call: ${shown}`;
  return null;
}

describe('fuzzing the tool-call body over the real API', () => {
  test('never a 5xx, never a hang, and a deny rule on a command is never bypassed by composition', async () => {
    const run = await createRun(h.api, h.seed);
    // Bodies holding NUL or a lone surrogate anywhere (tool name, argument key or value) are
    // among them: a 400 naming the field, never a 5xx.
    const samples = fc.sample(allCases, { seed: 20_261_111, numRuns: cases });
    const failures: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < samples.length) {
          const failure = await failureOf(run, samples[next++] as Case);
          if (failure) failures.push(failure);
        }
      }),
    );
    assert.deepEqual(failures.slice(0, 10), [], `${failures.length} of ${samples.length} failed`);
    // JSON.stringify writes NUL and lone surrogates as escapes: count the bodies holding one.
    const unstorable = samples.filter((s) => /\\u0000|\\ud[89a-f]/i.test(JSON.stringify(s.body)));
    assert.ok(unstorable.length > cases / 20, `only ${unstorable.length} unstorable bodies`);
    const denied = samples.filter((s) => s.mustDeny).length;
    assert.ok(denied > cases / 4, `only ${denied} composed denials were tried`);
  });
});
