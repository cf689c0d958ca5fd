import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import type { HookInput, SyncHookJSONOutput } from '@anthropic-ai/claude-agent-sdk';
import type { DecidedAnswer } from '../../src/domain/gate/vocabulary.js';
import type { DecideOptions, GateDecider, ToolCallRequest } from '../../src/runner/gate-client.js';
import { gatePreToolUseHook } from '../../src/runner/pre-tool-use-hook.js';
import { gateSkillShellHook } from '../../src/runner/skill-shell-hook.js';

/** A stand-in for the gate: records what it was asked and answers as the test says. */
function fakeGate(
  answer: (call: ToolCallRequest, options: DecideOptions) => Promise<DecidedAnswer>,
) {
  const asked: { id: string; call: ToolCallRequest }[] = [];
  const gate: GateDecider = {
    decide: (id, call, options) => {
      asked.push({ id, call });
      return answer(call, options ?? {});
    },
  };
  return { gate, asked };
}

const allow: DecidedAnswer = {
  status: 'decided',
  decision: 'allow',
  reason: 'allowed by rule "r"',
};
const deny = (source: DecidedAnswer['source'], reason: string): DecidedAnswer => ({
  status: 'decided',
  decision: 'deny',
  source,
  reason,
});

function preToolUse(tool: string, input: unknown, extra: Record<string, unknown> = {}): HookInput {
  return {
    hook_event_name: 'PreToolUse',
    session_id: 'sdk-session',
    transcript_path: '/tmp/t.jsonl',
    cwd: '/srv/repo',
    tool_name: tool,
    tool_input: input,
    tool_use_id: 'toolu_1',
    ...extra,
  };
}

async function run(
  gate: GateDecider,
  input: HookInput,
  options: { gateProxies?: Set<string>; handOffAfterMs?: number } = {},
): Promise<SyncHookJSONOutput> {
  const hook = gatePreToolUseHook(gate, {
    handOffAfterMs: options.handOffAfterMs ?? 60_000,
    ...(options.gateProxies && { gateProxies: options.gateProxies }),
  });
  return (await hook(input, 'toolu_1', {
    signal: new AbortController().signal,
  })) as SyncHookJSONOutput;
}

const decisionOf = (output: SyncHookJSONOutput) =>
  output.hookSpecificOutput?.hookEventName === 'PreToolUse'
    ? [
        output.hookSpecificOutput.permissionDecision,
        output.hookSpecificOutput.permissionDecisionReason,
      ]
    : undefined;

describe('the PreToolUse hook asks the gate about every call', () => {
  test("it asks under the SDK's tool-use id with the tool's input; what the gate allows goes on to canUseTool ('ask'), which confirms it with the input that runs", async () => {
    const { gate, asked } = fakeGate(() => Promise.resolve(allow));
    const output = await run(gate, preToolUse('Bash', { command: 'echo hi' }));
    assert.deepEqual(asked, [
      { id: 'toolu_1', call: { tool: 'Bash', arguments: { command: 'echo hi' } } },
    ]);
    assert.deepEqual(decisionOf(output), [
      'ask',
      'allowed by rule "r" (canUseTool confirms it with the input that runs)',
    ]);
  });

  test("a deny reaches the model with the gate's reason; budget and binding denies end the run", async () => {
    const policy = await run(
      fakeGate(() => Promise.resolve(deny('policy', 'denied by rule "no-rm"'))).gate,
      preToolUse('Bash', { command: 'rm -rf /' }),
    );
    assert.deepEqual(decisionOf(policy), ['deny', 'denied by rule "no-rm"']);
    assert.equal(policy.continue, undefined);
    for (const source of ['budget', 'binding'] as const) {
      const ending = await run(
        fakeGate(() => Promise.resolve(deny(source, `${source} says no`))).gate,
        preToolUse('Read', { file_path: 'a' }),
      );
      assert.deepEqual([ending.continue, ending.stopReason], [false, `${source} says no`]);
      assert.equal(decisionOf(ending)?.[0], 'deny');
    }
  });

  test('a gate that cannot answer denies', async () => {
    const output = await run(
      fakeGate(() => Promise.reject(new Error('connect ECONNREFUSED'))).gate,
      preToolUse('Read', { file_path: 'a' }),
    );
    assert.deepEqual(decisionOf(output), [
      'deny',
      'the gate could not decide (connect ECONNREFUSED); denied',
    ]);
  });

  test('an approval that outlasts the hand-off is handed to canUseTool with "ask"', async () => {
    const { gate } = fakeGate(
      (_call, { signal }) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => {
            reject(new Error('aborted'));
          });
        }),
    );
    const output = await run(gate, preToolUse('Bash', { command: 'make deploy' }), {
      handOffAfterMs: 50,
    });
    assert.equal(decisionOf(output)?.[0], 'ask');
  });

  test('calls to a gate MCP proxy this runner registered are left to that proxy, which decides them', async () => {
    const { gate, asked } = fakeGate(() => Promise.resolve(allow));
    const proxies = new Set(['fs']);
    const served = await run(
      gate,
      preToolUse(
        'mcp__fs__read_file',
        { path: 'a' },
        { mcp_server: { name: 'fs', source: 'dynamic' } },
      ),
      { gateProxies: proxies },
    );
    assert.equal(decisionOf(served)?.[0], 'allow');
    assert.equal(asked.length, 0);
    // The same name from configuration the runner did not give, or another server's tool: asked.
    await run(
      gate,
      preToolUse(
        'mcp__fs__read_file',
        { path: 'a' },
        { mcp_server: { name: 'fs', source: 'project' } },
      ),
      { gateProxies: proxies },
    );
    await run(
      gate,
      preToolUse('mcp__other__x', {}, { mcp_server: { name: 'other', source: 'dynamic' } }),
      { gateProxies: proxies },
    );
    assert.equal(asked.length, 2);
  });

  test('questions and plan review are refused on purpose, after the gate has recorded them', async () => {
    const { gate, asked } = fakeGate(() => Promise.resolve(allow));
    for (const tool of ['AskUserQuestion', 'ExitPlanMode', 'EnterPlanMode']) {
      const output = await run(gate, preToolUse(tool, {}));
      assert.equal(decisionOf(output)?.[0], 'deny', tool);
      assert.match(String(decisionOf(output)?.[1]), /needs a person at the runner/);
    }
    assert.equal(asked.length, 3);
  });

  test("a subagent's call is decided like any other, under its own tool-use id", async () => {
    const { gate, asked } = fakeGate(() => Promise.resolve(allow));
    const output = await run(
      gate,
      preToolUse('Read', { file_path: 'a' }, { agent_id: 'agent-1', tool_use_id: 'toolu_sub' }),
    );
    assert.equal(decisionOf(output)?.[0], 'ask');
    assert.equal(asked[0]?.id, 'toolu_sub');
  });

  test('an input that is not an object is denied; other hook events are left alone', async () => {
    const { gate, asked } = fakeGate(() => Promise.resolve(allow));
    assert.equal(decisionOf(await run(gate, preToolUse('Bash', 'rm -rf /')))?.[0], 'deny');
    const other = await run(gate, {
      ...preToolUse('Bash', {}),
      hook_event_name: 'Stop',
    } as HookInput);
    assert.deepEqual(other, {});
    assert.equal(asked.length, 0);
  });
});

describe("the hook on a skill's shell commands asks the gate about each", () => {
  const skillCommand = (command: string): HookInput => ({
    hook_event_name: 'PreSkillShellCommand',
    session_id: 'sdk-session',
    transcript_path: '/tmp/t.jsonl',
    cwd: '/srv/repo',
    tool_name: 'Bash',
    tool_input: { command },
    tool_use_id: 'toolu_skill:preamble-0',
    command_name: 'review',
    invoked_by: 'claude',
  });
  const signal = new AbortController().signal;

  test('as a Bash call under the id the SDK gives it; only an allow lets it run', async () => {
    const { gate, asked } = fakeGate(() => Promise.resolve(allow));
    assert.deepEqual(
      await gateSkillShellHook(gate)(skillCommand('git log -1'), undefined, { signal }),
      {},
    );
    assert.deepEqual(asked, [
      {
        id: 'toolu_skill:preamble-0',
        call: { tool: 'Bash', arguments: { command: 'git log -1' } },
      },
    ]);
    for (const answer of [
      () => Promise.resolve(deny('policy', 'denied by the policy default')),
      () => Promise.reject(new Error('connect ECONNREFUSED')),
    ]) {
      const output = (await gateSkillShellHook(fakeGate(answer).gate)(
        skillCommand('env'),
        undefined,
        { signal },
      )) as SyncHookJSONOutput;
      assert.equal(
        output.hookSpecificOutput?.hookEventName === 'PreSkillShellCommand' &&
          output.hookSpecificOutput.permissionDecision,
        'deny',
      );
    }
  });
});
