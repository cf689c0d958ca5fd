import { applyAutonomy, type EffectiveVerdict } from '../domain/gate/autonomy.js';
import type { GateRequest } from '../domain/gate/vocabulary.js';
import { evaluatePolicy } from '../domain/policy/policy.js';
import type { FrozenRuns } from './frozen-runs.js';

export interface PolicyStageResult extends EffectiveVerdict {
  policy_id: string;
  policy_version: number;
  approval: { timeout_s: number; on_timeout: 'allow' | 'deny' };
}

/** Stage 5: the run's frozen policy version, never the policy's current content. */
export function policyStage(frozen: FrozenRuns) {
  return async function policy(request: GateRequest): Promise<PolicyStageResult> {
    const run = await frozen.run(request.run_id);
    const { body } = await frozen.policy(run);
    const tool = run.toolset.find((t) => t.name === request.tool);
    if (!tool) throw new Error(`tool "${request.tool}" reached policy without being frozen`);
    const verdict = evaluatePolicy(body, {
      tool: tool.name,
      class: tool.class,
      effect: tool.effect,
      arguments: request.arguments,
    });
    return {
      ...applyAutonomy(verdict, run.autonomy, body.autonomous_fallback),
      policy_id: run.policy_id,
      policy_version: run.policy_version,
      approval: body.approval,
    };
  };
}
