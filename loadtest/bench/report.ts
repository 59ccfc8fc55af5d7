/** Turns the figures of a run into the printed tables, the ratios and the JSON report. */
import { cpus, totalmem } from 'node:os';
import type { BenchPlan } from '../workloads/workloads';
import { DISTURBED_CORES, type IdleFigures, type RateFigures } from './run-workload';
import { SERVER_NAMES, type ServerId } from './servers';

export const SERVER_IDS: ServerId[] = ['taco', 'socketio', 'raw'];

export interface Outcome<T> {
  figures: T | null;
  error: string | null;
}

export interface BenchReport {
  date: string;
  machine: { cpus: number; cpuModel: string; memoryGiB: number; node: string; platform: string };
  plan: BenchPlan;
  topology: string;
  results: {
    fanout: Record<ServerId, Outcome<RateFigures>>;
    manyRooms: Record<ServerId, Outcome<RateFigures>>;
    idle: Record<ServerId, Outcome<IdleFigures>>;
  };
  ratios: Record<string, { vsSocketIo: number | null; vsRaw: number | null }>;
  seconds: number;
}

export function machine(): BenchReport['machine'] {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}

const num = (value: number | null | undefined, digits = 1) =>
  value === null || value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(digits);

function table(title: string, rows: [string, ...string[]][]): string {
  const header: [string, ...string[]] = ['', ...SERVER_IDS.map((id) => SERVER_NAMES[id])];
  const all = [header, ...rows];
  const widths = header.map((_, column) =>
    Math.max(...all.map((row) => (row[column] ?? '').length)),
  );
  const line = (row: string[]) =>
    row
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[0] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ');
  return [
    `\n${title}`,
    line(header),
    line(widths.map((width) => '-'.repeat(width))),
    ...rows.map(line),
  ].join('\n');
}

function rateRows(results: Record<ServerId, Outcome<RateFigures>>): [string, ...string[]][] {
  const cell = (id: ServerId, pick: (figures: RateFigures) => string) => {
    const outcome = results[id];
    if (outcome.error !== null) return 'error';
    return outcome.figures ? pick(outcome.figures) : '–';
  };
  const row = (label: string, pick: (figures: RateFigures) => string): [string, ...string[]] => [
    label,
    ...SERVER_IDS.map((id) => cell(id, pick)),
  ];
  return [
    row('delivered msg/s (all delivered, p99 ≤ limit)', (f) => num(f.deliveredPerSecond, 0)),
    row('  at offered msg/s per room', (f) => num(f.best?.roomRate ?? null, 0)),
    row('  search stopped by', (f) => f.stoppedBy),
    row('p50 latency at half load (ms)', (f) => num(f.p50MsAtHalf, 2)),
    row('p99 latency at half load (ms)', (f) => num(f.p99MsAtHalf, 2)),
    row('server CPU s per 10k deliveries', (f) => num(f.cpuSecondsPer10kDeliveries, 3)),
    row("load clients' peak CPU (% of a core)", (f) => num(f.clientCpuPeak * 100, 0)),
    row('invalid steps (client saturated)', (f) =>
      String(f.steps.filter((step) => !step.valid).length),
    ),
    row('steps run again (disturbed machine)', (f) =>
      String(f.steps.filter((step) => step.repeat).length),
    ),
    row(
      'outside load / steal, peak (cores)',
      (f) => `${num(f.outsideCoresPeak, 2)} / ${num(f.stealCoresPeak, 2)}`,
    ),
  ];
}

function idleRows(results: Record<ServerId, Outcome<IdleFigures>>): [string, ...string[]][] {
  const cell = (id: ServerId, pick: (figures: IdleFigures) => string) => {
    const outcome = results[id];
    if (outcome.error !== null) return 'error';
    return outcome.figures ? pick(outcome.figures) : '–';
  };
  const row = (label: string, pick: (figures: IdleFigures) => string): [string, ...string[]] => [
    label,
    ...SERVER_IDS.map((id) => cell(id, pick)),
  ];
  return [
    row('connections held', (f) => String(f.connections)),
    row('memory per idle connection (KiB)', (f) => num(f.bytesPerConnection / 1024, 2)),
    row(
      'RSS before → after (MiB)',
      (f) => `${num(f.rssBeforeBytes / 2 ** 20)} → ${num(f.rssAfterBytes / 2 ** 20)}`,
    ),
    row('connect time (s)', (f) => num(f.connectSeconds, 1)),
  ];
}

const ratio = (a: number | null | undefined, b: number | null | undefined) =>
  a === null || a === undefined || b === null || b === undefined || b === 0 ? null : a / b;

export function ratios(results: BenchReport['results']): BenchReport['ratios'] {
  const out: BenchReport['ratios'] = {};
  const pair = (name: string, pick: (id: ServerId) => number | null | undefined) => {
    out[name] = {
      vsSocketIo: ratio(pick('taco'), pick('socketio')),
      vsRaw: ratio(pick('taco'), pick('raw')),
    };
  };
  for (const key of ['fanout', 'manyRooms'] as const) {
    pair(
      `${key}: delivered msg/s (higher is better)`,
      (id) => results[key][id].figures?.deliveredPerSecond,
    );
    pair(
      `${key}: p99 at half load (lower is better)`,
      (id) => results[key][id].figures?.p99MsAtHalf,
    );
    pair(
      `${key}: CPU per 10k deliveries (lower is better)`,
      (id) => results[key][id].figures?.cpuSecondsPer10kDeliveries,
    );
  }
  pair(
    'idle: memory per connection (lower is better)',
    (id) => results.idle[id].figures?.bytesPerConnection,
  );
  return out;
}

export function render(report: BenchReport): string {
  const { plan, results } = report;
  const parts = [
    `Taco Chat benchmark — ${report.date}`,
    `${report.machine.cpus} × ${report.machine.cpuModel}, ${report.machine.memoryGiB} GiB, Node ${report.machine.node}`,
    plan.smoke
      ? 'SMOKE RUN: tiny sizes, the figures only show that every part works.'
      : `Sizes scaled by BENCH_SCALE=${plan.scale} (rooms, members and connections; per-room rates unchanged).`,
    report.topology,
    table(plan.fanout.title, rateRows(results.fanout)),
    table(plan.manyRooms.title, rateRows(results.manyRooms)),
    table(plan.idle.title, idleRows(results.idle)),
    '\nRatios (Taco Chat ÷ other)',
  ];
  const width = Math.max(...Object.keys(report.ratios).map((name) => name.length));
  parts.push(`${''.padEnd(width)}  ÷ Socket.IO  ÷ raw ws`);
  for (const [name, value] of Object.entries(report.ratios)) {
    parts.push(
      `${name.padEnd(width)}  ${num(value.vsSocketIo, 2).padStart(11)}  ${num(value.vsRaw, 2).padStart(8)}`,
    );
  }
  const errors = (['fanout', 'manyRooms', 'idle'] as const).flatMap((key) =>
    SERVER_IDS.flatMap((id) => {
      const error = results[key][id].error;
      return error === null ? [] : [`${key} / ${SERVER_NAMES[id]}: ${error}`];
    }),
  );
  if (errors.length > 0) parts.push('\nErrors:', ...errors);
  const peak = (pick: (figures: RateFigures) => number) =>
    Math.max(
      0,
      ...(['fanout', 'manyRooms'] as const).flatMap((key) =>
        SERVER_IDS.map((id) => {
          const figures = results[key][id].figures;
          return figures ? pick(figures) : 0;
        }),
      ),
    );
  const outside = peak((figures) => figures.outsideCoresPeak);
  const steal = peak((figures) => figures.stealCoresPeak);
  if (outside > DISTURBED_CORES || steal > DISTURBED_CORES) {
    parts.push(
      `\nWARNING: during some step, processes outside the benchmark used up to ${outside.toFixed(2)} ` +
        `cores and the hypervisor stole up to ${steal.toFixed(2)} cores; figures of such a step ` +
        'are not reliable. Compare the outside load / steal rows, and run again on a quiet machine.',
    );
  }
  parts.push(`\nTook ${report.seconds.toFixed(0)} s.`);
  return parts.join('\n');
}
