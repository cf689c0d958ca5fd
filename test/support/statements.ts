import type { Pool, PoolClient } from 'pg';

/** The statements the pool sends from now on, in order: through `pool.query` and transactions. */
export function watchStatements(pool: Pool): string[] {
  const sent: string[] = [];
  const watched = new WeakSet<object>();
  const watch = <C extends { query: (...args: never[]) => unknown }>(client: C): C => {
    if (watched.has(client)) return client;
    watched.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as { query: unknown }).query = (config: unknown, ...rest: unknown[]) => {
      sent.push(typeof config === 'string' ? config : (config as { text: string }).text);
      return query(config, ...rest);
    };
    return client;
  };
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  (pool as { connect: unknown }).connect = (callback?: (...args: unknown[]) => void) =>
    callback
      ? connect((err: unknown, client: PoolClient | undefined, release: unknown) => {
          callback(err, client ? watch(client) : client, release);
        })
      : (connect() as Promise<PoolClient>).then(watch);
  return sent;
}
