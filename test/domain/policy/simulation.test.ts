import assert from 'node:assert/strict';
import { test } from 'vitest';
import type { PolicyBody } from '../../../src/domain/policy/policy.js';
import {
  candidateVerdict,
  Simulation,
  type RecordedCall,
  type SimulatedRun,
} from '../../../src/domain/policy/simulation.js';
import type { FrozenTool } from '../../../src/domain/tools/tools.js';

const tool = (name: string, effect: 'read' | 'write'): FrozenTool => ({
  name,
  description: '',
  input_schema: { type: 'object' },
  effect,
  digest: `d-${name}`,
  class: 'sandbox',
  origin: { kind: 'bundle', bundle_id: 'b' },
  binding: null,
  callable: true,
});

const tools = new Map([
  ['Read', tool('Read', 'read')],
  ['Bash', tool('Bash', 'write')],
]);
const supervised: SimulatedRun = { autonomy: 'supervised', tools };
const autonomous: SimulatedRun = { autonomy: 'autonomous', tools };

const candidate: PolicyBody = {
  workspace: '00000000-0000-4000-8000-000000000000',
  name: 'candidate',
  rules: [
    { id: 'reads', match: { effect: 'read' }, verdict: 'allow' },
    { id: 'bash-asks', match: { tool: 'Bash' }, verdict: 'require_approval' },
  ],
  default: 'deny',
  autonomous_fallback: 'deny',
  approval: { timeout_s: 60, on_timeout: 'deny' },
};

const call = (tool: string, recorded: RecordedCall['recorded']): RecordedCall => ({
  session_id: 's',
  tool_call_id: `${tool}-${recorded.source ?? recorded.decision}`,
  run_id: 'r',
  tool,
  arguments: { command: 'ls' },
  recorded,
});

test('a call denied before the policy stage stands as recorded, whatever the candidate says', () => {
  for (const source of [
    'budget',
    'capability',
    'binding',
    'schema',
    'trust_tier',
    'unavailable',
  ] as const) {
    const verdict = candidateVerdict(
      candidate,
      call('Read', { decision: 'deny', source, asked: false }),
      supervised,
    );
    assert.equal(verdict.decision, 'deny');
    assert.equal(verdict.stage, source);
  }
});

test('require_approval would ask a person in a supervised run and is the fallback in an autonomous one', () => {
  const bash = call('Bash', { decision: 'allow', rule_id: 'bash-ok', asked: false });
  assert.deepEqual(candidateVerdict(candidate, bash, supervised), {
    decision: 'ask',
    rule_id: 'bash-asks',
    reason: 'would ask a person: rule "bash-asks"',
    stage: 'policy',
  });
  assert.equal(candidateVerdict(candidate, bash, autonomous).decision, 'deny');
});

test('a call that asked a person is unchanged when the candidate asks too, changed when it decides', () => {
  const simulation = new Simulation(false);
  const add = (recorded: Parameters<typeof call>[0], outcome: Parameters<typeof call>[1]) => {
    const made = call(recorded, outcome);
    simulation.add(made, candidateVerdict(candidate, made, supervised));
  };
  add('Bash', { decision: 'allow', rule_id: 'bash-asks', asked: true });
  add('Read', { decision: 'deny', source: 'approval', asked: true });
  add('Read', { decision: 'deny', source: 'schema', asked: false });
  simulation.withhold();
  const report = simulation.report();
  assert.equal(report.evaluated, 3);
  assert.equal(report.withheld, 1);
  assert.equal(simulation.count, 4);
  assert.deepEqual(report.by_outcome, { allow: 1, deny: 1, ask: 1 });
  assert.deepEqual(report.by_rule, { 'bash-asks': 1, reads: 1, 'stage:schema': 1 });
  assert.deepEqual(
    report.changed.map((c) => [c.tool, c.candidate.decision, c.arguments]),
    [['Read', 'allow', undefined]],
  );
});
