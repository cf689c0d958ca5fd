/**
 * A runner as a user would write one: the real Claude Agent SDK wired through the gate with
 * `gateQueryOptions`, its model the scripted fake upstream. Used in-process by tests, and as a
 * process of its own (configured by environment) by tests that kill a runner mid-wait.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { query, type Options, type SDKResultMessage } from '@anthropic-ai/claude-agent-sdk';
import { GateClient } from '../../src/runner/gate-client.js';
import { gateQueryOptions } from '../../src/runner/gate-query-options.js';

export interface GatedAgentConfig {
  gateUrl: string;
  sessionId: string;
  sessionToken: string;
  /** The fake model's base URL. */
  modelUrl: string;
  cwd: string;
  /** Built-in tools to offer besides the defaults (Glob and Grep are not offered by default). */
  tools?: string[];
  hookTimeoutS?: number;
  /** Plugins the runner adds (skills, commands of its own). */
  plugins?: Options['plugins'];
  /** Called when the SDK asks the second line (canUseTool), with the tool-use id. */
  onCanUseTool?: (toolUseId: string) => void;
}

export async function runGatedAgent(config: GatedAgentConfig): Promise<SDKResultMessage> {
  const client = new GateClient({
    baseUrl: config.gateUrl,
    sessionId: config.sessionId,
    sessionToken: config.sessionToken,
    waitS: 5,
  });
  const gated = await gateQueryOptions(client, {
    ...(config.hookTimeoutS !== undefined && { hookTimeoutS: config.hookTimeoutS }),
  });
  const configDir = mkdtempSync(path.join(tmpdir(), 'gated-agent-config-'));
  const options: Options = {
    ...gated,
    canUseTool: (tool, input, context) => {
      config.onCanUseTool?.(context.toolUseID);
      return gated.canUseTool(tool, input, context);
    },
    cwd: config.cwd,
    ...(config.tools && { tools: config.tools }),
    ...(config.plugins && { plugins: config.plugins }),
    env: {
      ...process.env,
      ANTHROPIC_BASE_URL: config.modelUrl,
      ANTHROPIC_API_KEY: 'fake-model-key',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      CLAUDE_CONFIG_DIR: configDir,
    },
  };
  try {
    for await (const message of query({ prompt: 'Do the task.', options })) {
      if (message.type === 'result') return message;
    }
    throw new Error('the agent ended without a result');
  } finally {
    rmSync(configDir, { recursive: true, force: true });
  }
}

// As a process: configured by environment; prints the result as one JSON line.
if (process.argv[1]?.endsWith('gated-agent.ts')) {
  const env = process.env;
  const result = await runGatedAgent({
    gateUrl: env.GATE_URL ?? '',
    sessionId: env.GATE_SESSION_ID ?? '',
    sessionToken: env.GATE_SESSION_TOKEN ?? '',
    modelUrl: env.FAKE_MODEL_URL ?? '',
    cwd: env.AGENT_CWD ?? process.cwd(),
    ...(env.HOOK_TIMEOUT_S && { hookTimeoutS: Number(env.HOOK_TIMEOUT_S) }),
    onCanUseTool: (id) => {
      process.stderr.write(`canUseTool ${id}\n`);
    },
  });
  process.stdout.write(`${JSON.stringify({ subtype: result.subtype })}\n`);
  process.exit(result.subtype === 'success' ? 0 : 1);
}
