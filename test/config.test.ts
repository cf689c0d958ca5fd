import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, test } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

const payloadKey = Buffer.alloc(32, 7).toString('base64');
const required = {
  DATABASE_URL: 'postgres://gate@db.internal:5432/gate',
  TEMPORAL_ADDRESS: 'temporal.internal:7233',
  GATE_PAYLOAD_KEYS: `k1:${payloadKey}`,
};

function refusal(env: NodeJS.ProcessEnv): string {
  try {
    loadConfig(env);
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.message;
  }
  assert.fail('the configuration was accepted');
}

describe('configuration from the environment', () => {
  test('only where PostgreSQL and Temporal are, and the payload keys, are required; the rest has defaults', () => {
    assert.deepEqual(loadConfig(required), {
      databaseUrl: required.DATABASE_URL,
      temporal: {
        address: 'temporal.internal:7233',
        namespace: 'default',
        taskQueue: 'fluidbox-gate',
      },
      api: {
        host: '127.0.0.1',
        port: 8080,
        publicUrl: 'http://127.0.0.1:8080',
        operatorKey: undefined,
        logLevel: 'info',
      },
      approvalRecheckS: 300,
      approvalRecheckMaxS: 3600,
      mcpApprovalWaitS: 25,
      workerCachedWorkflows: 250,
      eagerStart: true,
      heapGrowthPercent: 25,
      sealingKey: undefined,
      reservationTtlS: 1050,
      workflowBundlePath: undefined,
      http: {
        headersTimeoutMs: 10_000,
        requestTimeoutMs: 60_000,
        idleTimeoutMs: 30_000,
        keepAliveTimeoutMs: 72_000,
        streamDrainTimeoutMs: 30_000,
      },
      modelProxy: {
        idleTimeoutMs: 120_000,
        totalTimeoutMs: 900_000,
        writeDeadlineMs: 30_000,
        countTokensPerMinute: 60,
        concurrentPerRun: 16,
      },
      payloadKeys: [{ id: 'k1', key: Buffer.alloc(32, 7) }],
      codecCorsOrigins: [],
      workerMetrics: undefined,
      postgresBounds: { connectMs: 3_000, statementMs: 4_000, queryMs: 5_000 },
      temporalCallTimeoutMs: 5_000,
      unavailableWindowS: 45,
      web: { oidc: undefined, tokenSignIn: true, sessionIdleS: 1800, sessionMaxS: 28_800 },
      simulation: { deadlineMs: 20_000, atOnce: 2 },
      brokerDnsServers: undefined,
      brokerCallsPerWorkspace: 20,
    });
  });

  test('the identity provider is named by all three of its variables or none', () => {
    const oidc = {
      GATE_OIDC_ISSUER: 'https://login.acme.test',
      GATE_OIDC_CLIENT_ID: 'gate',
      GATE_OIDC_CLIENT_SECRET: 's3cret',
    };
    assert.deepEqual(loadConfig({ ...required, ...oidc, GATE_TOKEN_SIGNIN: 'off' }).web, {
      oidc: { issuer: 'https://login.acme.test', clientId: 'gate', clientSecret: 's3cret' },
      tokenSignIn: false,
      sessionIdleS: 1800,
      sessionMaxS: 28_800,
    });
    assert.throws(
      () => loadConfig({ ...required, GATE_OIDC_ISSUER: oidc.GATE_OIDC_ISSUER }),
      /GATE_OIDC_ISSUER, GATE_OIDC_CLIENT_ID, GATE_OIDC_CLIENT_SECRET: must be set together/,
    );
  });

  test('the claim a provisioned User is linked by is named with the provider, and is a claim name', () => {
    const oidc = {
      GATE_OIDC_ISSUER: 'https://login.acme.test',
      GATE_OIDC_CLIENT_ID: 'gate',
      GATE_OIDC_CLIENT_SECRET: 's3cret',
    };
    assert.equal(
      loadConfig({ ...required, ...oidc, GATE_OIDC_EXTERNAL_ID_CLAIM: 'oid' }).web.oidc
        ?.externalIdClaim,
      'oid',
    );
    assert.throws(
      () => loadConfig({ ...required, GATE_OIDC_EXTERNAL_ID_CLAIM: 'oid' }),
      /GATE_OIDC_EXTERNAL_ID_CLAIM: only with GATE_OIDC_ISSUER/,
    );
    assert.throws(
      () => loadConfig({ ...required, ...oidc, GATE_OIDC_EXTERNAL_ID_CLAIM: 'o id' }),
      /GATE_OIDC_EXTERNAL_ID_CLAIM/,
    );
    for (const mutable of ['email', 'preferred_username', 'UPN']) {
      assert.throws(
        () => loadConfig({ ...required, ...oidc, GATE_OIDC_EXTERNAL_ID_CLAIM: mutable }),
        /GATE_OIDC_EXTERNAL_ID_CLAIM.*may change names nobody/,
      );
    }
  });

  test('every variable is read, numbers as numbers', () => {
    const config = loadConfig({
      ...required,
      TEMPORAL_NAMESPACE: 'gates',
      GATE_TASK_QUEUE: 'gate-eu',
      GATE_API_HOST: '0.0.0.0',
      GATE_API_PORT: '9090',
      GATE_PUBLIC_URL: 'https://gate.example.com',
      GATE_OPERATOR_KEY: 'an-operator-key-of-enough-length',
      GATE_SEALING_KEY: 'c2VhbGluZw==',
      GATE_APPROVAL_RECHECK_S: '0.5',
      GATE_APPROVAL_RECHECK_MAX_S: '120',
      GATE_WORKER_CACHED_WORKFLOWS: '64',
      GATE_EAGER_START: 'off',
      GATE_RESERVATION_TTL_S: '800',
      LOG_LEVEL: 'warn',
      GATE_WORKFLOW_BUNDLE: '/srv/gate/workflow-bundle.js',
      GATE_MODEL_IDLE_TIMEOUT_S: '30',
      GATE_MODEL_TIMEOUT_S: '600',
      GATE_MODEL_WRITE_DEADLINE_S: '5',
      GATE_MODEL_COUNT_TOKENS_PER_MINUTE: '20',
      GATE_MODEL_CONCURRENT_PER_RUN: '4',
      GATE_HTTP_HEADERS_TIMEOUT_S: '5',
      GATE_HTTP_REQUEST_TIMEOUT_S: '20',
      GATE_HTTP_IDLE_TIMEOUT_S: '15',
      GATE_HTTP_KEEP_ALIVE_TIMEOUT_S: '65',
      GATE_STREAM_DRAIN_TIMEOUT_S: '10',
      GATE_WORKER_METRICS_HOST: '0.0.0.0',
      GATE_WORKER_METRICS_PORT: '9464',
      GATE_PG_CONNECT_TIMEOUT_S: '2',
      GATE_PG_STATEMENT_TIMEOUT_S: '8',
      GATE_PG_QUERY_TIMEOUT_S: '9.5',
      GATE_TEMPORAL_CALL_TIMEOUT_S: '4',
      GATE_UNAVAILABLE_WINDOW_S: '60',
      GATE_BROKER_CALLS_PER_WORKSPACE: '5',
    });
    assert.equal(config.brokerCallsPerWorkspace, 5);
    assert.deepEqual(config.temporal, {
      address: 'temporal.internal:7233',
      namespace: 'gates',
      taskQueue: 'gate-eu',
    });
    assert.deepEqual(config.api, {
      host: '0.0.0.0',
      port: 9090,
      publicUrl: 'https://gate.example.com',
      operatorKey: 'an-operator-key-of-enough-length',
      logLevel: 'warn',
    });
    assert.equal(config.approvalRecheckS, 0.5);
    assert.equal(config.approvalRecheckMaxS, 120);
    assert.equal(config.workerCachedWorkflows, 64);
    assert.equal(config.eagerStart, false);
    assert.equal(config.sealingKey, 'c2VhbGluZw==');
    assert.equal(config.reservationTtlS, 800);
    assert.equal(config.workflowBundlePath, '/srv/gate/workflow-bundle.js');
    assert.deepEqual(config.modelProxy, {
      idleTimeoutMs: 30_000,
      totalTimeoutMs: 600_000,
      writeDeadlineMs: 5_000,
      countTokensPerMinute: 20,
      concurrentPerRun: 4,
    });
    assert.deepEqual(config.http, {
      headersTimeoutMs: 5_000,
      requestTimeoutMs: 20_000,
      idleTimeoutMs: 15_000,
      keepAliveTimeoutMs: 65_000,
      streamDrainTimeoutMs: 10_000,
    });
    assert.deepEqual(config.workerMetrics, { host: '0.0.0.0', port: 9464 });
    assert.deepEqual(config.postgresBounds, {
      connectMs: 2_000,
      statementMs: 8_000,
      queryMs: 9_500,
    });
    assert.equal(config.temporalCallTimeoutMs, 4_000);
    assert.equal(config.unavailableWindowS, 60);
  });

  test('the server gives up on a statement before the client stops waiting for its answer', () => {
    assert.match(
      refusal({ ...required, GATE_PG_STATEMENT_TIMEOUT_S: '5', GATE_PG_QUERY_TIMEOUT_S: '5' }),
      /GATE_PG_STATEMENT_TIMEOUT_S: must be less than GATE_PG_QUERY_TIMEOUT_S/,
    );
  });

  test('a reservation lives past the longest model request: a TTL shorter than the model timeout, one write deadline and the settlement margin stops start-up', () => {
    assert.throws(
      () => loadConfig({ ...required, GATE_MODEL_TIMEOUT_S: '600', GATE_RESERVATION_TTL_S: '680' }),
      /GATE_RESERVATION_TTL_S: must be at least GATE_MODEL_TIMEOUT_S \+ GATE_MODEL_WRITE_DEADLINE_S \+ 120 \(750\)/,
    );
    assert.equal(loadConfig({ ...required, GATE_MODEL_TIMEOUT_S: '60' }).reservationTtlS, 210);
  });

  test('a client write deadline at or past the idle bound stops start-up: a relay waiting on its client would cut the provider off', () => {
    assert.throws(
      () =>
        loadConfig({
          ...required,
          GATE_MODEL_IDLE_TIMEOUT_S: '30',
          GATE_MODEL_WRITE_DEADLINE_S: '30',
        }),
      /GATE_MODEL_WRITE_DEADLINE_S: must be shorter than GATE_MODEL_IDLE_TIMEOUT_S/,
    );
  });

  test('the request bound is never shorter than the headers bound: the headers are part of the request', () => {
    const config = loadConfig({
      ...required,
      GATE_HTTP_HEADERS_TIMEOUT_S: '30',
      GATE_HTTP_REQUEST_TIMEOUT_S: '10',
    });
    assert.equal(config.http.headersTimeoutMs, 30_000);
    assert.equal(config.http.requestTimeoutMs, 30_000);
  });

  test('an empty variable counts as unset', () => {
    const config = loadConfig({ ...required, GATE_EAGER_START: '', GATE_API_PORT: '' });
    assert.equal(config.eagerStart, true);
    assert.equal(config.api.port, 8080);
  });

  test('a missing or wrong value stops start-up, naming every variable at fault', () => {
    const message = refusal({
      TEMPORAL_ADDRESS: 'no port here',
      GATE_API_PORT: '70000',
      GATE_APPROVAL_RECHECK_S: '0',
      GATE_EAGER_START: 'sometimes',
      GATE_OPERATOR_KEY: 'short',
      GATE_WORKER_CACHED_WORKFLOWS: '1.5',
      GATE_PG_QUERY_TIMEOUT_S: 'soon',
      GATE_UNAVAILABLE_WINDOW_S: '0',
    });
    for (const name of [
      'DATABASE_URL',
      'TEMPORAL_ADDRESS',
      'GATE_API_PORT',
      'GATE_APPROVAL_RECHECK_S',
      'GATE_EAGER_START',
      'GATE_OPERATOR_KEY',
      'GATE_PAYLOAD_KEYS',
      'GATE_WORKER_CACHED_WORKFLOWS',
      'GATE_PG_QUERY_TIMEOUT_S',
      'GATE_UNAVAILABLE_WINDOW_S',
    ]) {
      assert.match(message, new RegExp(`^  ${name}: `, 'm'), message);
    }
    assert.doesNotMatch(message, /short/, 'a secret is never repeated back');
  });
});

describe('a real Temporal cluster, as Temporal names it in the environment', () => {
  const files = mkdtempSync(path.join(tmpdir(), 'gate-config-'));
  const bytes = (text: string) => new Uint8Array(Buffer.from(text));
  const file = (name: string) => {
    const full = path.join(files, name);
    writeFileSync(full, `-----${name}-----`);
    return full;
  };
  afterAll(() => {
    rmSync(files, { recursive: true, force: true });
  });

  test('a dev server: plain gRPC, no key', () => {
    const { temporal } = loadConfig(required);
    assert.equal(temporal.tls, undefined);
    assert.equal(temporal.apiKey, undefined);
  });

  test('an API key (Temporal Cloud) turns TLS on with the system CAs', () => {
    const { temporal } = loadConfig({ ...required, TEMPORAL_API_KEY: 'cloud-key' });
    assert.deepEqual(temporal.tls, {});
    assert.equal(temporal.apiKey, 'cloud-key');
  });

  test('TEMPORAL_TLS=false keeps TLS off; true turns it on alone', () => {
    const off = loadConfig({ ...required, TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false' });
    assert.equal(off.temporal.tls, undefined);
    assert.deepEqual(loadConfig({ ...required, TEMPORAL_TLS: 'true' }).temporal.tls, {});
  });

  test('mTLS: the files are read once, at start-up', () => {
    const { temporal } = loadConfig({
      ...required,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: file('ca'),
      TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
      TEMPORAL_TLS_CLIENT_CERT_PATH: file('crt'),
      TEMPORAL_TLS_CLIENT_KEY_PATH: file('key'),
    });
    assert.deepEqual(temporal.tls, {
      serverRootCACertificate: bytes('-----ca-----'),
      serverNameOverride: 'temporal.internal',
      clientCertPair: { crt: bytes('-----crt-----'), key: bytes('-----key-----') },
    });
  });

  test('a file that cannot be read, or a certificate without its key, stops start-up', () => {
    assert.match(
      refusal({ ...required, TEMPORAL_TLS_SERVER_CA_CERT_PATH: path.join(files, 'absent') }),
      /^ {2}TEMPORAL_TLS_SERVER_CA_CERT_PATH: must name a readable file/m,
    );
    assert.match(
      refusal({ ...required, TEMPORAL_TLS_CLIENT_CERT_PATH: file('crt') }),
      /TEMPORAL_TLS_CLIENT_CERT_PATH, TEMPORAL_TLS_CLIENT_KEY_PATH: must be set together/,
    );
  });
  test("Temporal's own environment configuration: a profile of TEMPORAL_CONFIG_FILE, the variables over it, certificates given inline, gRPC metadata", () => {
    const toml = path.join(files, 'temporal.toml');
    writeFileSync(
      toml,
      [
        '[profile.cloud]',
        'address = "gates.a1b2c.tmprl.cloud:7233"',
        'namespace = "gates.a1b2c"',
        'api_key = "from-the-profile"',
        '[profile.cloud.grpc_meta]',
        'x-tenant = "acme"',
      ].join('\n'),
    );
    const { temporal } = loadConfig({
      ...required,
      TEMPORAL_CONFIG_FILE: toml,
      TEMPORAL_PROFILE: 'cloud',
      TEMPORAL_TLS_SERVER_CA_CERT_DATA: '-----inline ca-----',
    });
    // The variables win over the profile: the address here is the environment's.
    assert.equal(temporal.address, 'temporal.internal:7233');
    assert.equal(temporal.namespace, 'gates.a1b2c');
    assert.equal(temporal.apiKey, 'from-the-profile');
    assert.deepEqual(temporal.tls, { serverRootCACertificate: bytes('-----inline ca-----') });
    assert.deepEqual(temporal.metadata, { 'x-tenant': 'acme' });
    assert.match(
      refusal({ ...required, TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'absent' }),
      /TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE: .*absent/,
    );
  });

  test('a profile is read only from a file named, and a bad one stops start-up without quoting it', () => {
    // A Temporal CLI profile in the home folder is someone's workstation, not this deployment's.
    const home = path.join(files, 'home');
    mkdirSync(path.join(home, '.config', 'temporalio'), { recursive: true });
    const cloud = '[profile.default]\nnamespace = "elsewhere"\napi_key = "a-workstation-key"\n';
    writeFileSync(path.join(home, '.config', 'temporalio', 'temporal.toml'), cloud);
    const { temporal } = loadConfig({ ...required, HOME: home, XDG_CONFIG_HOME: '' });
    assert.equal(temporal.namespace, 'default');
    assert.equal(temporal.apiKey, undefined);
    assert.equal(temporal.tls, undefined);

    const broken = path.join(files, 'broken.toml');
    writeFileSync(broken, '[profile.default]\napi_key = "SECRET-CLOUD-KEY\n');
    const told = refusal({ ...required, TEMPORAL_CONFIG_FILE: broken });
    assert.match(
      told,
      /TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE: the file is not a Temporal configuration/,
    );
    assert.doesNotMatch(told, /SECRET/);
    assert.match(
      refusal({ ...required, TEMPORAL_CONFIG_FILE: path.join(files, 'absent.toml') }),
      /TEMPORAL_CONFIG_FILE: must name a readable file/,
    );
  });

  test('a certificate given inline still needs its key, host verification is never turned off, and the API key is not smuggled in as metadata', () => {
    assert.match(
      refusal({ ...required, TEMPORAL_TLS_CLIENT_CERT_DATA: '-----crt-----' }),
      /must be set together/,
    );
    const mixed = loadConfig({
      ...required,
      TEMPORAL_TLS_CLIENT_CERT_DATA: '-----crt-----',
      TEMPORAL_TLS_CLIENT_KEY_PATH: file('key'),
    });
    assert.deepEqual(mixed.temporal.tls?.clientCertPair, {
      crt: bytes('-----crt-----'),
      key: bytes('-----key-----'),
    });
    assert.match(
      refusal({ ...required, TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: 'true' }),
      /TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: is not supported/,
    );
    assert.match(
      refusal({ ...required, TEMPORAL_GRPC_META_AUTHORIZATION: 'Bearer x' }),
      /TEMPORAL_GRPC_META_AUTHORIZATION: the API key is TEMPORAL_API_KEY/,
    );
  });
});

describe('payload keys and the codec endpoint', () => {
  const key = (byte: number) => Buffer.alloc(32, byte).toString('base64');

  test('several keys: the first encrypts, all decrypt', () => {
    const config = loadConfig({
      ...required,
      GATE_PAYLOAD_KEYS: `2026-12:${key(2)}, 2026-11:${key(1)}`,
    });
    assert.deepEqual(
      config.payloadKeys.map((k) => k.id),
      ['2026-12', '2026-11'],
    );
  });

  test('a short key, a bad id or a repeated id stops start-up, never echoing a key', () => {
    const short = Buffer.alloc(16, 9).toString('base64');
    for (const keys of [`k:${short}`, `bad id:${key(1)}`, `k:${key(1)},k:${key(2)}`]) {
      const message = refusal({ ...required, GATE_PAYLOAD_KEYS: keys });
      assert.match(message, /^ {2}GATE_PAYLOAD_KEYS: /m);
      assert.doesNotMatch(message, new RegExp(short.slice(0, 10)));
      assert.doesNotMatch(message, new RegExp(key(1).slice(0, 10)));
    }
  });

  test('the codec endpoint answers browsers from the listed origins only', () => {
    const config = loadConfig({
      ...required,
      GATE_CODEC_CORS_ORIGINS: 'http://127.0.0.1:8233, https://temporal.example.com',
    });
    assert.deepEqual(config.codecCorsOrigins, [
      'http://127.0.0.1:8233',
      'https://temporal.example.com',
    ]);
    assert.match(
      refusal({ ...required, GATE_CODEC_CORS_ORIGINS: 'https://ui.example.com/path' }),
      /GATE_CODEC_CORS_ORIGINS/,
    );
  });
});
