#!/usr/bin/env node
// The gate MCP proxy as an executable: the TypeScript source runs through tsx, resolved from
// this project wherever the proxy is started from.
import { register } from 'tsx/esm/api';

register();
await import('../src/runner/mcp-proxy/main.ts');
