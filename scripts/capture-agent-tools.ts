/**
 * `npm run capture-agent-tools`: asks the installed Claude Agent SDK which built-in tools it
 * offers and with which input schemas, by running it against the scripted fake model and
 * reading the `tools` of the requests it sends, and writes them to
 * src/domain/tools/agent-sdk-tools.generated.json. Run it after upgrading the SDK; the test
 * test/runner/agent-sdk-tools.test.ts fails until the file matches the installed SDK.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILTIN_TOOL_NAMES, query, type Options } from '@anthropic-ai/claude-agent-sdk';
import * as prettier from 'prettier';
import {
  agentScript,
  offersTools,
  startFakeAnthropic,
  text,
} from '../test/support/fake-anthropic.js';

const output = fileURLToPath(
  new URL('../src/domain/tools/agent-sdk-tools.generated.json', import.meta.url),
);
const everything = fileURLToPath(
  new URL('../node_modules/.bin/mcp-server-everything', import.meta.url),
);

interface SentTool {
  name: string;
  description?: string;
  input_schema?: Record<string, unknown>;
  /** A stand-in for tools deferred behind tool search, not a tool. */
  defer_loading?: boolean;
}

/** The tools the SDK sends to the model on its first main-loop request under these options. */
async function sentTools(options: Options, env: Record<string, string>): Promise<SentTool[]> {
  const fake = await startFakeAnthropic(agentScript([text('done')]));
  const cwd = mkdtempSync(path.join(tmpdir(), 'capture-cwd-'));
  const config = mkdtempSync(path.join(tmpdir(), 'capture-config-'));
  try {
    const run = query({
      prompt: 'Say done.',
      options: {
        cwd,
        settingSources: [],
        permissionMode: 'default',
        // Some tools are offered only to a host that answers permission prompts.
        canUseTool: () => Promise.resolve({ behavior: 'deny', message: 'capture only' }),
        ...options,
        env: {
          ...process.env,
          ANTHROPIC_BASE_URL: fake.url,
          ANTHROPIC_API_KEY: 'capture',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          CLAUDE_CONFIG_DIR: config,
          ...env,
        },
      },
    });
    for await (const message of run) {
      if (message.type === 'result' && message.subtype !== 'success') {
        throw new Error(`the SDK run ended with ${message.subtype}`);
      }
    }
    const request = fake.messages().find((r) => offersTools(r));
    if (!request) throw new Error('the SDK sent no request offering tools');
    return (request.body as { tools: SentTool[] }).tools;
  } finally {
    await fake.close();
    rmSync(cwd, { recursive: true, force: true });
    rmSync(config, { recursive: true, force: true });
  }
}

/** The first sentence of a tool's long prompt-style description, for approvers to read. */
function summary(description: string): string {
  const plain = description.replace(/^[#\s-]+\S*\s*/, (m) => (m.trim().startsWith('#') ? '' : m));
  const first = plain.trim().split(/(?<=[.!?])\s/)[0] ?? '';
  const line = first.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

// Every built-in the SDK can offer, with tool search off so none is deferred without a schema,
// and an MCP server with resources so the resource tools are offered too; then the defaults,
// which add the tool-search tool itself.
const everyTool = await sentTools(
  {
    tools: [...BUILTIN_TOOL_NAMES],
    mcpServers: { everything: { command: everything, args: ['stdio'], alwaysLoad: true } },
  },
  { ENABLE_TOOL_SEARCH: 'false' },
);
const defaults = await sentTools({}, {});
const byName = new Map<string, SentTool>();
for (const tool of [...everyTool, ...defaults]) {
  const builtIn = !tool.name.startsWith('mcp__') && tool.defer_loading !== true;
  if (!builtIn || !tool.input_schema || byName.has(tool.name)) continue;
  byName.set(tool.name, tool);
}
const tools = [...byName.values()]
  .sort((a, b) => (a.name < b.name ? -1 : 1))
  .map((tool) => ({
    name: tool.name,
    description: summary(tool.description ?? ''),
    input_schema: tool.input_schema,
  }));
const manifest = new URL(
  '../node_modules/@anthropic-ai/claude-agent-sdk/package.json',
  import.meta.url,
);
const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
const json = JSON.stringify({ sdk_version: version, tools });
const config = await prettier.resolveConfig(output);
writeFileSync(output, await prettier.format(json, { ...config, parser: 'json' }));
process.stdout.write(`${tools.length} tools of the agent SDK ${version} -> ${output}\n`);
