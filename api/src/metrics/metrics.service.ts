import { Injectable } from '@nestjs/common';

export class Counter {
  value = 0;
  inc(amount = 1): void {
    this.value += amount;
  }
}

export class LabeledCounter {
  readonly values = new Map<string, number>();
  inc(label: string | number, amount = 1): void {
    const key = String(label);
    this.values.set(key, (this.values.get(key) ?? 0) + amount);
  }
}

export class Gauge {
  value = 0;
  inc(): void {
    this.value++;
  }
  dec(): void {
    this.value--;
  }
}

export class Histogram {
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(readonly bounds: readonly number[]) {
    this.counts = bounds.map(() => 0);
  }

  observe(value: number): void {
    this.sum += value;
    this.count++;
    const index = this.bounds.findIndex((bound) => value <= bound);
    if (index !== -1) this.counts[index] = (this.counts[index] ?? 0) + 1;
  }
}

const FANOUT_BUCKETS_SECONDS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
];

/** The process's Prometheus metrics, kept as plain numbers so the hot path only adds. */
@Injectable()
export class MetricsService {
  readonly connections = new Gauge();
  readonly framesIn = new LabeledCounter();
  readonly framesOut = new Counter();
  readonly errorFrames = new LabeledCounter();
  readonly closes = new LabeledCounter();
  readonly httpRateLimited = new Counter();
  readonly fanoutSeconds = new Histogram(FANOUT_BUCKETS_SECONDS);

  render(replica: string): string {
    const lines: string[] = [];
    const label = `replica="${replica}"`;
    const help = (name: string, type: string, text: string) =>
      lines.push(`# HELP ${name} ${text}`, `# TYPE ${name} ${type}`);

    help('taco_connections', 'gauge', 'Open WebSocket connections.');
    lines.push(`taco_connections{${label}} ${this.connections.value}`);

    help('taco_frames_in_total', 'counter', 'Frames received from clients, by frame type.');
    for (const [type, value] of this.framesIn.values) {
      lines.push(`taco_frames_in_total{${label},type="${type}"} ${value}`);
    }
    help('taco_frames_out_total', 'counter', 'Frames sent to clients.');
    lines.push(`taco_frames_out_total{${label}} ${this.framesOut.value}`);

    help('taco_error_frames_total', 'counter', 'Error frames sent, by error code.');
    for (const [code, value] of this.errorFrames.values) {
      lines.push(`taco_error_frames_total{${label},code="${code}"} ${value}`);
    }
    help('taco_closes_total', 'counter', 'Connections closed by the server, by close code.');
    for (const [code, value] of this.closes.values) {
      lines.push(`taco_closes_total{${label},code="${code}"} ${value}`);
    }
    help('taco_http_rate_limited_total', 'counter', 'HTTP calls answered 429.');
    lines.push(`taco_http_rate_limited_total{${label}} ${this.httpRateLimited.value}`);

    const fanout = this.fanoutSeconds;
    help(
      'taco_fanout_seconds',
      'histogram',
      'Time to hand one room event to every local connection.',
    );
    let cumulative = 0;
    fanout.bounds.forEach((bound, index) => {
      cumulative += fanout.counts[index] ?? 0;
      lines.push(`taco_fanout_seconds_bucket{${label},le="${bound}"} ${cumulative}`);
    });
    lines.push(`taco_fanout_seconds_bucket{${label},le="+Inf"} ${fanout.count}`);
    lines.push(`taco_fanout_seconds_sum{${label}} ${fanout.sum}`);
    lines.push(`taco_fanout_seconds_count{${label}} ${fanout.count}`);
    return `${lines.join('\n')}\n`;
  }
}
