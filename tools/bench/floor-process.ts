/**
 * The floor in a process of its own (its client and its worker, as the API holds its client and
 * hosted worker), so the CPU it spends is read apart from the bench's. Driven over the fork's
 * channel: each `{ runners, calls }` is a round of empty update-with-start workflows, answered
 * with its duration; `stop` ends it.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { loadConfig } from '../../src/config.js';
import { concurrently } from './figures.js';
import { startFloor } from './floor.js';

export interface FloorRound {
  runners: number;
  calls: number;
}

Runtime.install({ logger: new DefaultLogger('WARN') });
const floor = await startFloor(loadConfig(process.env).temporal);

process.on('message', (message: FloorRound | 'stop') => {
  if (message === 'stop') {
    void floor.stop().then(() => process.exit(0));
    return;
  }
  void concurrently(message.runners, message.calls, () =>
    Promise.resolve(() => floor.updateWithStart()),
  ).then(
    ({ ms }) => process.send?.({ ms }),
    (err: unknown) => process.send?.({ error: String(err) }),
  );
});
process.send?.('ready');
