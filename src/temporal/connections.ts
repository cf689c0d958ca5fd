/**
 * The one place that connects to Temporal: the API's client, the worker's native connection and
 * the operators' history tools all reach the cluster (plain, TLS, mTLS or API key) and encrypt
 * payloads the same way.
 */
import { Client, Connection, type ConnectionOptions } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { NativeConnection, type NativeConnectionOptions } from '@temporalio/worker';
import type { TemporalConfig } from '../config.js';
import { EncryptionCodec, type PayloadKey } from './payload-codec.js';

/** What both kinds of connection share: where, TLS, and the API key. */
function clusterOptions(config: TemporalConfig) {
  return {
    address: config.address,
    ...(config.tls && { tls: config.tls }),
    ...(config.apiKey && { apiKey: config.apiKey }),
  };
}

export function connectionOptions(config: TemporalConfig): ConnectionOptions {
  return clusterOptions(config);
}

export function nativeConnectionOptions(config: TemporalConfig): NativeConnectionOptions {
  return clusterOptions(config);
}

/** Payloads in history are ciphertext: every client and worker of the gate uses this converter. */
export function gateDataConverter(keys: readonly PayloadKey[]): DataConverter {
  return { payloadCodecs: [new EncryptionCodec(keys)] };
}

/**
 * A client of the gate's namespace on a lazy connection, made on first use: a process (the API)
 * starts, and answers 503, while Temporal is away. The caller closes `client.connection`.
 */
export function temporalClient(config: TemporalConfig, keys: readonly PayloadKey[]): Client {
  const connection = Connection.lazy(connectionOptions(config));
  return new Client({
    connection,
    namespace: config.namespace,
    dataConverter: gateDataConverter(keys),
  });
}

/** The worker's connection (the Rust core's); the caller closes it after the worker stops. */
export function workerConnection(config: TemporalConfig): Promise<NativeConnection> {
  return NativeConnection.connect(nativeConnectionOptions(config));
}
