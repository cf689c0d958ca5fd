import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';

const required = {
  DATABASE_URL: 'postgres://gate@db.internal:5432/gate',
  TEMPORAL_ADDRESS: 'temporal.internal:7233',
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
  test('only where PostgreSQL and Temporal are is required; the rest has defaults', () => {
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
      approvalRecheckS: 10,
      stageActivities: 'local',
      eagerStart: true,
      sealingKey: undefined,
      reservationTtlS: 900,
      workflowBundlePath: undefined,
      modelProxy: { idleTimeoutMs: 120_000, totalTimeoutMs: 900_000 },
    });
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
      GATE_STAGE_ACTIVITIES: 'remote',
      GATE_EAGER_START: 'off',
      GATE_RESERVATION_TTL_S: '60',
      LOG_LEVEL: 'warn',
      GATE_WORKFLOW_BUNDLE: '/srv/gate/workflow-bundle.js',
      GATE_MODEL_IDLE_TIMEOUT_S: '30',
      GATE_MODEL_TIMEOUT_S: '600',
    });
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
    assert.equal(config.stageActivities, 'remote');
    assert.equal(config.eagerStart, false);
    assert.equal(config.sealingKey, 'c2VhbGluZw==');
    assert.equal(config.reservationTtlS, 60);
    assert.equal(config.workflowBundlePath, '/srv/gate/workflow-bundle.js');
    assert.deepEqual(config.modelProxy, { idleTimeoutMs: 30_000, totalTimeoutMs: 600_000 });
  });

  test('an empty variable counts as unset', () => {
    const config = loadConfig({ ...required, GATE_STAGE_ACTIVITIES: '', GATE_API_PORT: '' });
    assert.equal(config.stageActivities, 'local');
    assert.equal(config.api.port, 8080);
  });

  test('a missing or wrong value stops start-up, naming every variable at fault', () => {
    const message = refusal({
      TEMPORAL_ADDRESS: 'no port here',
      GATE_API_PORT: '70000',
      GATE_APPROVAL_RECHECK_S: '0',
      GATE_STAGE_ACTIVITIES: 'sometimes',
      GATE_OPERATOR_KEY: 'short',
    });
    for (const name of [
      'DATABASE_URL',
      'TEMPORAL_ADDRESS',
      'GATE_API_PORT',
      'GATE_APPROVAL_RECHECK_S',
      'GATE_STAGE_ACTIVITIES',
      'GATE_OPERATOR_KEY',
    ]) {
      assert.match(message, new RegExp(`^  ${name}: `, 'm'), message);
    }
    assert.doesNotMatch(message, /short/, 'a secret is never repeated back');
  });
});
