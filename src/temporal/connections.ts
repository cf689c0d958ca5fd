/**
 * The one place that connects to Temporal: the API's client, the worker's native connection and
 * the operators' history tools all reach the cluster (plain, TLS, mTLS or API key) and encrypt
 * payloads the same way.
 */
import {
  Client,
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  type ConnectionOptions,
} from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { NativeConnection, type NativeConnectionOptions } from '@temporalio/worker';
import type { TemporalConfig } from '../config.js';
import { tracingClientInterceptors } from '../telemetry/temporal-tracing.js';
import type { PayloadKey } from '../domain/secrets/payload-keys.js';
import { EncryptionCodec } from './payload-codec.js';

/** What both kinds of connection share: where, TLS, and the API key. */
function clusterOptions(config: TemporalConfig) {
  return {
    address: config.address,
    ...(config.tls && { tls: config.tls }),
    ...(config.apiKey && { apiKey: config.apiKey }),
    ...(config.metadata && { metadata: config.metadata }),
  };
}

export function connectionOptions(config: TemporalConfig): ConnectionOptions {
  return clusterOptions(config);
}

function nativeConnectionOptions(config: TemporalConfig): NativeConnectionOptions {
  return clusterOptions(config);
}

/** Payloads in history are ciphertext: every client and worker of the gate uses this converter. */
export function gateDataConverter(keys: readonly PayloadKey[]): DataConverter {
  return { payloadCodecs: [new EncryptionCodec(keys)] };
}

/**
 * How a client that answers people (the API) rides out a frontend that does not answer: the
 * SDK's retries of a refused call stop after about 3 s (six attempts, backing off from 0.17 s by
 * 1.7 times; its default is some 20 s), so a runner waiting on an update is told 503 and sends
 * the call again; and the channel tries to reconnect every 2 s at most (gRPC's default backs off
 * to two minutes), so calls flow within seconds of the frontend's return.
 */
const answeringPeople: Pick<ConnectionOptions, 'interceptors' | 'channelArgs'> = {
  interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions({ maxAttempts: 6 }))],
  channelArgs: { 'grpc.initial_reconnect_backoff_ms': 500, 'grpc.max_reconnect_backoff_ms': 2_000 },
};

/**
 * A client of the gate's namespace on a lazy connection, made on first use: a process (the API)
 * starts, and answers 503, while Temporal is away. The caller closes `client.connection`.
 * `quickToGiveUp` (the API's client): a frontend that does not answer is an error in seconds.
 */
export function temporalClient(
  config: TemporalConfig,
  keys: readonly PayloadKey[],
  { quickToGiveUp = false } = {},
): Client {
  const options = connectionOptions(config);
  const connection = Connection.lazy(quickToGiveUp ? { ...options, ...answeringPeople } : options);
  return new Client({
    connection,
    namespace: config.namespace,
    dataConverter: gateDataConverter(keys),
    interceptors: tracingClientInterceptors(),
  });
}

/** The worker's connection (the Rust core's); the caller closes it after the worker stops. */
export function workerConnection(config: TemporalConfig): Promise<NativeConnection> {
  return NativeConnection.connect(nativeConnectionOptions(config));
}
