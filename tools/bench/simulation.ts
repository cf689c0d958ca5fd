/**
 * Policy simulation's throughput in this process: recorded calls decoded from encrypted
 * histories held in memory (the codec's decryption and the payload converter, as
 * `recordedCallOf` reads Temporal's), then evaluated by a candidate with their runs' frozen
 * facts. Not measured: fetching the histories from Temporal and reading the runs from PostgreSQL
 * (once per run), which depend on the cluster.
 */
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import proto from '@temporalio/proto';
import type { PolicyBody } from '../../src/domain/policy/policy.js';
import {
  candidateVerdict,
  Simulation,
  type SimulatedRun,
} from '../../src/domain/policy/simulation.js';
import type { FrozenTool } from '../../src/domain/tools/tools.js';
import { EncryptionCodec } from '../../src/temporal/payload-codec.js';
import { recordedCallOf } from '../../src/temporal/recorded-calls.js';
import { gateWorkflowType } from '../../src/workflows/messages.js';

type History = proto.temporal.api.history.v1.IHistory;

const calls = 10_000;

const tool = (name: string, effect: 'read' | 'write'): FrozenTool => ({
  name,
  description: '',
  input_schema: { type: 'object' },
  effect,
  digest: `sha256:${name}`,
  class: 'sandbox',
  origin: { kind: 'bundle', bundle_id: 'bench' },
  binding: null,
  callable: true,
});

const candidate: PolicyBody = {
  workspace: '00000000-0000-4000-8000-000000000000',
  name: 'candidate',
  rules: [
    { id: 'reads', match: { effect: 'read' }, verdict: 'allow' },
    {
      id: 'no-rm-or-push',
      match: {
        tool: 'Bash',
        args: [
          {
            path: '/command',
            op: 'command',
            value: [
              ['rm', '**'],
              ['git', 'push', '**'],
            ],
          },
        ],
      },
      verdict: 'require_approval',
    },
    { id: 'bash-ok', match: { tool: 'Bash' }, verdict: 'allow' },
  ],
  default: 'deny',
  autonomous_fallback: 'deny',
  approval: { timeout_s: 600, on_timeout: 'deny' },
};

const commands = ['ls -la', 'rm -rf build', 'git push origin main', 'npm test && npm run lint'];

async function histories(codec: EncryptionCodec): Promise<History[]> {
  const sealed = async (value: unknown) => {
    const [payload] = await codec.encode([defaultPayloadConverter.toPayload(value)]);
    if (!payload) throw new Error('the codec sealed nothing');
    return payload;
  };
  return Promise.all(
    Array.from({ length: calls }, async (_, i) => {
      const bash = i % 2 === 0;
      const request = {
        run_id: `run-${i % 50}`,
        session_id: `s-${i % 50}`,
        tool_call_id: `c${i}`,
        tool: bash ? 'Bash' : 'Read',
        arguments: bash ? { command: commands[i % commands.length] } : { file_path: `/r/${i}` },
      };
      const answer = { status: 'decided', decision: 'allow', reason: 'allowed', rule_id: 'r' };
      return {
        events: [
          {
            workflowExecutionStartedEventAttributes: {
              workflowType: { name: gateWorkflowType },
              input: { payloads: [await sealed(request)] },
            },
          },
          {
            workflowExecutionCompletedEventAttributes: {
              result: { payloads: [await sealed(answer)] },
            },
          },
        ],
      };
    }),
  );
}

export async function benchSimulation(): Promise<void> {
  process.stdout.write(
    `\nPolicy simulation, ${calls} recorded calls decoded from encrypted in-memory histories and evaluated (no Temporal fetch, runs read once):\n`,
  );
  const codec = new EncryptionCodec([{ id: 'bench', key: randomBytes(32) }]);
  const recorded = await histories(codec);
  const run: SimulatedRun = {
    autonomy: 'supervised',
    tools: new Map([
      ['Bash', tool('Bash', 'write')],
      ['Read', tool('Read', 'read')],
    ]),
  };
  const t0 = performance.now();
  const simulation = new Simulation(false);
  for (const history of recorded) {
    const call = await recordedCallOf(history, codec);
    if (call) simulation.add(call, candidateVerdict(candidate, call, run));
  }
  const seconds = (performance.now() - t0) / 1000;
  const report = simulation.report();
  process.stdout.write(
    `  ${(report.evaluated / seconds).toFixed(0)} calls/s: ${report.evaluated} in ${seconds.toFixed(2)} s, ${report.changed.length} changed\n`,
  );
}
