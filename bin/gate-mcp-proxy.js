#!/usr/bin/env node
// The gate MCP proxy as an executable: the TypeScript source runs through tsx, resolved from
// this project wherever the proxy is started from. An MCP client starts it in the agent's
// working directory, which may be a stranger's repository: tsx is given this project's
// tsconfig.json, so a tsconfig.json there (its `paths`) never decides what the proxy imports.
import { URL, fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
await import('../src/runner/mcp-proxy/main.ts');
