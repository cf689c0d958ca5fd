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
  /**
   * The agent's configuration folder, kept by whoever made it (a runner that may be killed leaves
   * it to its test); by default a folder of its own, removed once the agent has exited.
   */
  configDir?: string;
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
  const configDir = config.configDir ?? mkdtempSync(path.join(tmpdir(), 'gated-agent-config-'));
  const stop = new AbortController();
  let ending: NodeJS.Timeout | undefined;
  const options: Options = {
    ...gated,
    abortController: stop,
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
    // Read to the end, not only to the result: the agent's process writes its session into the
    // configuration folder until it exits, and the folder goes once it has. An agent that has not
    // ended 10 s after its result is stopped.
    let result: SDKResultMessage | undefined;
    try {
      for await (const message of query({ prompt: 'Do the task.', options })) {
        if (message.type !== 'result' || result) continue;
        result = message;
        ending = setTimeout(() => {
          stop.abort();
        }, 10_000);
      }
    } catch (err) {
      if (!result || !stop.signal.aborted) throw err;
    }
    if (!result) throw new Error('the agent ended without a result');
    return result;
  } finally {
    clearTimeout(ending);
    if (config.configDir === undefined)
      rmSync(configDir, { recursive: true, force: true, maxRetries: 3 });
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
    ...(env.AGENT_CONFIG_DIR && { configDir: env.AGENT_CONFIG_DIR }),
    ...(env.HOOK_TIMEOUT_S && { hookTimeoutS: Number(env.HOOK_TIMEOUT_S) }),
    onCanUseTool: (id) => {
      process.stderr.write(`canUseTool ${id}\n`);
    },
  });
  process.stdout.write(`${JSON.stringify({ subtype: result.subtype })}\n`);
  process.exit(result.subtype === 'success' ? 0 : 1);
}
