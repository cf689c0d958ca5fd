import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { test } from 'vitest';
import { freeLoopbackPort, requireFreePort } from '../../tools/devstack/free-port.js';
import {
  ephemeralPorts,
  parseStackConfig,
  portSetting,
  projectRoot,
  StackConfigError,
  stackProfile,
} from '../../tools/devstack/stack-config.js';
import { temporalServerArgs } from '../../tools/devstack/temporal-server.js';

const text = readFileSync(path.join(projectRoot, 'temporal-dev.yaml'), 'utf8');

test('the committed temporal-dev.yaml is valid, and dev and test stacks do not share ports or data', () => {
  const config = parseStackConfig(text);
  const dev = stackProfile(config, 'dev');
  const tst = stackProfile(config, 'test');
  const ports = (p: typeof dev) => [
    p.temporal.port,
    p.temporal.uiPort,
    p.postgres.port,
    p.api.port,
  ];
  for (const port of ports(tst)) assert.equal(ports(dev).includes(port), false);
  // Every slot's ports too stay below the range the system lends to clients' connections.
  const slot = process.env.GATE_TEST_SLOT;
  process.env.GATE_TEST_SLOT = '9';
  try {
    for (const port of [...ports(dev), ...ports(stackProfile(config, 'test'))])
      assert.ok(port < ephemeralPorts.first, `port ${port}`);
  } finally {
    if (slot === undefined) delete process.env.GATE_TEST_SLOT;
    else process.env.GATE_TEST_SLOT = slot;
  }
  assert.notEqual(dev.postgres.dataDir, tst.postgres.dataDir);
  assert.notEqual(dev.temporal.sqliteFile, tst.temporal.sqliteFile);
});

test('a wrong value stops start-up with a message naming the key', () => {
  const cases: [string, string, RegExp][] = [
    ['port: 7233', 'port: 99999', /temporal\.port/],
    ['cli_version: 1.5.1', 'cli_version: latest', /temporal\.cli_version/],
    ['journal_mode: wal', 'journal_mode: "wal; drop"', /temporal\.sqlite_pragmas\.journal_mode/],
    ['database: fluidbox_gate', 'database: "x; drop"', /postgres\.database/],
    ['data_dir: .data/dev/postgres', 'data_dir: ../elsewhere', /postgres\.data_dir/],
    ['  GateTool: Keyword', '  GateTool: Blob', /temporal\.search_attributes\.GateTool/],
    ['api:\n', 'api:\n  extra: 1\n', /api/],
    ['  port: 15432', '  port: 55432', /postgres\.port: must be outside 32768–60999/],
    ['  postgres_port: 15433', '  postgres_port: 32768', /test\.postgres_port: must be outside/],
  ];
  for (const [from, to, key] of cases) {
    assert.ok(text.includes(from), from);
    assert.throws(
      () => parseStackConfig(text.replace(from, to)),
      (err: unknown) => {
        assert.ok(err instanceof StackConfigError);
        assert.match(err.message, key);
        return true;
      },
    );
  }
  assert.throws(() => parseStackConfig('temporal: ['), StackConfigError);
});

test('the dev server is started with every value the file describes', () => {
  const args = temporalServerArgs(stackProfile(parseStackConfig(text), 'dev'), 18_999);
  const joined = args.join(' ');
  assert.match(joined, /--port 7233 /);
  // The CLI's UI behind the stack's UI address, which serves the gate's codec on its origin.
  assert.match(joined, /--ui-port 18999 /);
  assert.match(joined, /--ui-codec-endpoint http:\/\/127\.0\.0\.1:8233\/codec /);
  assert.match(joined, /--sqlite-pragma journal_mode=wal/);
  assert.match(joined, /--dynamic-config-value frontend\.enableExecuteMultiOperation=true/);
  assert.match(joined, /--search-attribute GateSessionId=Keyword/);
  assert.match(joined, /--db-filename \S+temporal\.sqlite/);
});

test('a port the stack needs that another process holds is named, with the setting that moves it', async () => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const { port } = holder.address() as AddressInfo;
  try {
    const dev = stackProfile(parseStackConfig(text), 'dev');
    await assert.rejects(
      requireFreePort('127.0.0.1', port, 'PostgreSQL', portSetting(dev, 'postgres')),
      (err: unknown) => {
        assert.ok(err instanceof StackConfigError);
        assert.equal(
          err.message,
          `PostgreSQL cannot listen on 127.0.0.1:${port}: another process holds that port. Stop it, or set postgres.port in temporal-dev.yaml.`,
        );
        return true;
      },
    );
    assert.match(
      portSetting({ name: 'test' }, 'temporal'),
      /test\.temporal_port .* GATE_TEST_SLOT/,
    );
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
  // Once the holder is gone, the same port passes.
  await requireFreePort('127.0.0.1', port, 'PostgreSQL', 'x');
});

test('a free port for a server a test starts is below the ephemeral range: no outgoing connection takes it before the server listens', async () => {
  const low = Number(
    readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0],
  );
  const ports = await Promise.all(Array.from({ length: 20 }, () => freeLoopbackPort()));
  for (const port of ports) assert.ok(port >= 20_000 && port < low, `${port} (range from ${low})`);
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(ports[0], '127.0.0.1', resolve));
  await new Promise((resolve) => server.close(resolve));
});
