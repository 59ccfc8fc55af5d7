/**
 * The bench's measurements inside the storm's member processes (loaded as `STORM_MEASURE`):
 * messages carry a latency probe, bystanders' deliveries go into a histogram per phase, and the
 * process's own event-loop delay is kept per phase (its share of the latency).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { type StormMeasure, type StormPhase } from '@taco/harness';
import { emptyHistogram, record } from '../histogram';
import { nowMs, probeBody, readProbe } from '../probe';

export interface StormMeasured {
  bystanders: Record<StormPhase, number[]>;
  eventLoop: Record<StormPhase, { p99Ms: number; maxMs: number }>;
}

let phase: StormPhase = 'warm';
const measured: StormMeasured = {
  bystanders: { warm: emptyHistogram(), storm: emptyHistogram(), after: emptyHistogram() },
  eventLoop: {
    warm: { p99Ms: 0, maxMs: 0 },
    storm: { p99Ms: 0, maxMs: 0 },
    after: { p99Ms: 0, maxMs: 0 },
  },
};
const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();

/** Closes the current phase's event-loop figures and starts the next phase's. */
function enterPhase(next: StormPhase): void {
  measured.eventLoop[phase] = { p99Ms: delay.percentile(99) / 1e6, maxMs: delay.max / 1e6 };
  delay.reset();
  phase = next;
}

export const measure: StormMeasure = {
  body: (n, bytes) => probeBody(0, n, bytes),
  bystander: (frame) => {
    const probe = readProbe(frame.body);
    if (probe) record(measured.bystanders[phase], nowMs() - probe.t);
  },
  phase: enterPhase,
  report: () => {
    enterPhase(phase);
    return measured;
  },
};
