/**
 * A runner for `npm run dev`: creates a demo workspace and a run with the operator key (the same
 * as `npm run seed`), then runs a Claude Agent SDK agent whose every tool call is decided by the
 * gate. Reads are allowed; anything else waits for a person in the approvals web form.
 *
 *   GATE_OPERATOR_KEY=<key> npx tsx examples/agent-sdk-runner.ts --scripted
 *     the model is a scripted stand-in started here: no API key, nothing leaves the machine
 *   GATE_OPERATOR_KEY=<key> ANTHROPIC_API_KEY=<key> npx tsx examples/agent-sdk-runner.ts "<task>"
 *     a real model; ANTHROPIC_BASE_URL points the SDK elsewhere (the gate's model endpoint)
 *
 * GATE_API_URL names the gate (default http://127.0.0.1:8080).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { seed } from '../tools/seed.js';
import { GateClient } from '../src/runner/gate-client.js';
import { gateQueryOptions } from '../src/runner/gate-query-options.js';
import { agentScript, startFakeAnthropic, text, toolUses } from '../test/support/fake-anthropic.js';

const { values, positionals } = parseArgs({
  options: { scripted: { type: 'boolean', default: false } },
  allowPositionals: true,
});
const gateUrl = process.env.GATE_API_URL ?? 'http://127.0.0.1:8080';
const operatorKey = process.env.GATE_OPERATOR_KEY;
if (!operatorKey) {
  process.stderr.write('set GATE_OPERATOR_KEY to the key `npm run dev` printed\n');
  process.exit(2);
}
if (!values.scripted && !process.env.ANTHROPIC_API_KEY) {
  process.stderr.write('set ANTHROPIC_API_KEY for a real model, or pass --scripted\n');
  process.exit(2);
}

// The agent works in a folder of its own, with one file to read.
const workdir = mkdtempSync(path.join(tmpdir(), 'gated-agent-'));
writeFileSync(path.join(workdir, 'NOTES.md'), '# Notes\n\nThe gate decides every tool call.\n');

const demo = await seed(gateUrl, operatorKey);
const say = (line: string) => process.stdout.write(`${line}\n`);
say(`run ${demo.run.run_id} (session ${demo.run.session_id}) in ${workdir}`);
say(`approvals: sign in at ${gateUrl}/login with the approver's token ${demo.approver.user_token}`);

// The scripted model reads a file (allowed), then writes one with Bash (a person decides).
const scripted = values.scripted
  ? await startFakeAnthropic(
      agentScript([
        toolUses({ name: 'Read', input: { file_path: path.join(workdir, 'NOTES.md') } }),
        toolUses({
          name: 'Bash',
          input: { command: 'echo "hello from a gated agent" > hello.txt' },
        }),
        text('I read the notes and wrote hello.txt.'),
      ]),
    )
  : undefined;

const client = new GateClient({
  baseUrl: gateUrl,
  sessionId: demo.run.session_id,
  sessionToken: demo.run.session_token,
});
const gated = await gateQueryOptions(client);

// The agent's tools (its Bash above all) read the environment it is given: the operator key is
// the runner's, never the agent's.
const agentEnvironment = { ...process.env };
delete agentEnvironment.GATE_OPERATOR_KEY;

function show(message: SDKMessage) {
  if (message.type === 'assistant') {
    for (const block of message.message.content) {
      if (block.type === 'text') say(`model: ${block.text}`);
      if (block.type === 'tool_use')
        say(`model calls ${block.name} ${JSON.stringify(block.input)}`);
    }
  }
  if (message.type === 'user' && Array.isArray(message.message.content)) {
    for (const block of message.message.content) {
      if (block.type === 'tool_result') {
        const content = JSON.stringify(block.content).slice(0, 160);
        say(`  ${block.is_error ? 'refused' : 'result'}: ${content}`);
      }
    }
  }
  if (message.type === 'result') say(`done: ${message.subtype}`);
}

try {
  for await (const message of query({
    prompt: positionals.join(' ') || 'Read NOTES.md, then write a greeting to hello.txt with Bash.',
    options: {
      ...gated,
      cwd: workdir,
      env: {
        ...agentEnvironment,
        ...(scripted && { ANTHROPIC_BASE_URL: scripted.url, ANTHROPIC_API_KEY: 'scripted' }),
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      },
    },
  })) {
    show(message);
  }
} finally {
  await scripted?.close();
}
say(`the ledger: ${gateUrl}/v1/sessions/${demo.run.session_id}/events (operator key)`);
