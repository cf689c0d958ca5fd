/**
 * The gate beside the floor, in one run on the same servers: sequential calls interleaved (so a
 * burst of load elsewhere touches every series alike), an approver's decision reaching a waiting
 * runner, and throughput with many runners at once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { concurrently, figures, timed, type Figures } from './figures.js';
import { allowBody, approvalBody, firstStageDenyBody, type GateCalls } from './gate-calls.js';
import type { startFloor } from './floor.js';

type Floor = Awaited<ReturnType<typeof startFloor>>;

export interface Sizes {
  /** Sequential calls per series. */
  sequential: number;
  /** Pending calls decided while their runner waits. */
  decisions: number;
  /** Runners at once, and calls each, for throughput; in rounds, the floor's and the gate's in turn. */
  runners: number;
  callsPerRunner: number;
  rounds: number;
}

export interface Measurement {
  series: Record<string, Figures>;
  throughput: { floor: number; gate: number; floorLatency: Figures; gateLatency: Figures };
}

export const seriesNames = {
  updateWithStart: 'floor: empty workflow, update-with-start',
  eager: 'floor: empty workflow, eager start + result',
  allow: 'gate: allow (every stage)',
  allowUpdate: 'gate: allow, update-with-start (eager off)',
  deny: 'gate: deny at capability (first stage)',
  pending: 'gate: pending approval answered',
  decision: 'gate: approver decides -> waiting runner',
} as const;

async function sequential(calls: GateCalls, plain: GateCalls, floor: Floor, n: number) {
  const run = await calls.newRun();
  const plainRun = await plain.newRun();
  // Warm before measuring: workflow code, connections, the JIT (a third of a small sample).
  const warmUp = Math.min(20, Math.ceil(n / 3));
  for (let i = 0; i < warmUp; i += 1) {
    await floor.updateWithStart();
    await floor.eagerStart();
    await calls.submit(run, allowBody);
    await plain.submit(plainRun, allowBody);
  }
  const samples: Record<string, number[]> = {};
  const add = (name: string, ms: number) => (samples[name] ??= []).push(ms);
  const pendingIds: string[] = [];
  for (let i = 0; i < n; i += 1) {
    add(seriesNames.updateWithStart, await timed(() => floor.updateWithStart()));
    add(seriesNames.eager, await timed(() => floor.eagerStart()));
    add(seriesNames.allow, await timed(() => calls.submit(run, allowBody)));
    add(seriesNames.allowUpdate, await timed(() => plain.submit(plainRun, allowBody)));
    add(seriesNames.deny, await timed(() => calls.submit(run, firstStageDenyBody)));
    const t = performance.now();
    pendingIds.push((await calls.submit(run, approvalBody)).id);
    add(seriesNames.pending, performance.now() - t);
  }
  return { run, samples, pendingIds };
}

/** From the approver's request to the waiting runner's answer, one pending call at a time. */
async function decisionToRunner(calls: GateCalls, n: number) {
  const run = await calls.newRun();
  const samples: number[] = [];
  for (let i = 0; i < n; i += 1) {
    const { id } = await calls.submit(run, approvalBody);
    const waiting = calls.waitFor(run, id);
    await sleep(30); // the runner's wait is under way at the API before anyone decides
    const t = performance.now();
    await calls.approve(run, id);
    const answer = await waiting;
    samples.push(performance.now() - t);
    if (answer.decision !== 'allow')
      throw new Error(`approved call answered ${JSON.stringify(answer)}`);
  }
  return samples;
}

/**
 * `calls` go to the API as configured; `plain` to one without a hosted worker, whose calls take
 * update-with-start: the path before eager start, measured in the same run.
 */
export async function measure(
  calls: GateCalls,
  plain: GateCalls,
  floor: Floor,
  sizes: Sizes,
): Promise<Measurement> {
  const { samples } = await sequential(calls, plain, floor, sizes.sequential);
  samples[seriesNames.decision] = await decisionToRunner(calls, sizes.decisions);
  const load = await throughput(calls, floor, sizes);
  const series: Record<string, Figures> = {};
  for (const [name, values] of Object.entries(samples)) series[name] = figures(values);
  return {
    series,
    throughput: {
      floor: load.floor.perSecond,
      gate: load.gate.perSecond,
      floorLatency: figures(load.floor.samples),
      gateLatency: figures(load.gate.samples),
    },
  };
}

/**
 * Calls per second with many runners at once, the floor's and the gate's. Measured in rounds,
 * each taking the other's place first in the next (floor, gate, gate, floor, ...): the server's
 * histories grow and the machine's other load comes and goes, and both touch each series alike.
 */
async function throughput(calls: GateCalls, floor: Floor, sizes: Sizes) {
  const totals = {
    floor: { samples: [] as number[], ms: 0, perSecond: 0 },
    gate: { samples: [] as number[], ms: 0, perSecond: 0 },
  };
  const rounds = {
    floor: () =>
      concurrently(sizes.runners, sizes.callsPerRunner, () =>
        Promise.resolve(() => floor.updateWithStart()),
      ),
    gate: () =>
      concurrently(sizes.runners, sizes.callsPerRunner, async () => {
        const run = await calls.newRun();
        return () => calls.submit(run, allowBody);
      }),
  };
  for (let round = 0; round < sizes.rounds; round += 1) {
    const order = round % 2 === 0 ? (['floor', 'gate'] as const) : (['gate', 'floor'] as const);
    for (const kind of order) {
      const { samples, ms } = await rounds[kind]();
      totals[kind].samples.push(...samples);
      totals[kind].ms += ms;
    }
  }
  const perSeries = sizes.rounds * sizes.runners * sizes.callsPerRunner;
  for (const total of Object.values(totals)) total.perSecond = (perSeries * 1000) / total.ms;
  return totals;
}

/** The ratios the gate is held to, gate over floor. */
export function ratios(m: Measurement) {
  const of = (name: string) => m.series[name] ?? { p50: NaN, p95: NaN, p99: NaN, mean: NaN };
  const floor = of(seriesNames.updateWithStart);
  const allow = of(seriesNames.allow);
  return {
    'allow p50 / update-with-start p50': allow.p50 / floor.p50,
    'allow p99 / update-with-start p99': allow.p99 / floor.p99,
    'allow p50 / eager start p50': allow.p50 / of(seriesNames.eager).p50,
    'allow p50 / allow without eager start p50': allow.p50 / of(seriesNames.allowUpdate).p50,
    'first-stage deny p50 / update-with-start p50': of(seriesNames.deny).p50 / floor.p50,
    'pending answer p50 / update-with-start p50': of(seriesNames.pending).p50 / floor.p50,
    'throughput gate / update-with-start': m.throughput.gate / m.throughput.floor,
  };
}
