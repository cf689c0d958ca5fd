/**
 * The part of the bootstrap that needs the project's own code: the Temporal CLI at the version
 * temporal-dev.yaml names, the local PostgreSQL cluster's files (created, not left running), and
 * the pinned Schemathesis that checks the API against its document (tools/test/schemathesis-install.ts)
 * the pinned scim2-tester that checks the SCIM endpoint (tools/test/scim2-tester-install.ts), and
 * the pinned Python MCP SDK that drives the remote MCP endpoint (tools/test/mcp-python-install.ts).
 * `npm run dev` and `npm test` start the services themselves.
 */
import { loadStackConfig, StackConfigError } from './devstack/stack-config.js';
import { ensureTemporalCli } from './devstack/temporal-server.js';
import { ensureSchemathesis } from './test/schemathesis-install.js';
import { ensureMcpPython } from './test/mcp-python-install.js';
import { ensureScim2Tester } from './test/scim2-tester-install.js';

try {
  const config = loadStackConfig();
  await ensureTemporalCli(config.temporal.cli_version);
  await ensureSchemathesis();
  await ensureScim2Tester();
  await ensureMcpPython();
} catch (err) {
  const message =
    err instanceof StackConfigError ? err.message : String((err as Error).stack ?? err);
  process.stderr.write(`bootstrap failed: ${message}\n`);
  process.exit(1);
}
