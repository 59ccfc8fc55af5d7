import { Counter, type Metric, type Registry } from 'prom-client';

/**
 * Metrics the hot paths touch on every message or room event, kept as plain numbers: adding costs
 * an addition (prom-client's `inc`/`observe` hash a label object and allocate on every call).
 * Prometheus reads them through the same registry, in the same exposition, when it scrapes.
 */

/** A counter without labels: counted here, handed to a prom-client counter on each scrape. */
export class PlainCounter {
  private pending = 0;

  constructor(registry: Registry, name: string, help: string) {
    const counter: Counter = new Counter({
      name,
      help,
      registers: [registry],
      collect: () => {
        if (this.pending === 0) return;
        counter.inc(this.pending);
        this.pending = 0;
      },
    });
  }

  inc(amount = 1): void {
    this.pending += amount;
  }
}

/**
 * A counter with one label: counted per label value here, handed to prom-client on each scrape.
 * The `initial` label values are shown at 0 from the start, so that `rate()` and `increase()` see
 * their first increment (a series that appears with its first count hides that count from them).
 */
export class PlainLabeledCounter<L extends string> {
  private readonly pending = new Map<string | number, number>();

  constructor(
    registry: Registry,
    name: string,
    help: string,
    private readonly label: L,
    initial: readonly (string | number)[] = [],
  ) {
    const counter: Counter<L> = new Counter<L>({
      name,
      help,
      labelNames: [label],
      registers: [registry],
      collect: () => {
        for (const [value, amount] of this.pending) {
          counter.inc({ [label]: value } as Record<L, string | number>, amount);
        }
        this.pending.clear();
      },
    });
    for (const value of initial) {
      counter.inc({ [label]: value } as Record<L, string | number>, 0);
    }
  }

  inc(labels: Record<L, string | number>, amount = 1): void {
    const value = labels[this.label];
    this.pending.set(value, (this.pending.get(value) ?? 0) + amount);
  }
}

interface HistogramSeries {
  /** Per bucket (not cumulative), then the count above the last bound. */
  readonly counts: number[];
  sum: number;
  count: number;
}

interface HistogramSample {
  labels: Record<string, string | number>;
  sharedLabels: Record<string, string>;
  value: number;
  metricName: string;
}

interface HistogramData {
  name: string;
  help: string;
  type: 'histogram';
  aggregator: 'sum';
  values: HistogramSample[];
}

/**
 * A Prometheus histogram (cumulative `_bucket{le}`, `+Inf`, `_sum`, `_count`, as prom-client
 * writes them), with at most one label, observed with plain arithmetic.
 */
export class PlainHistogram<L extends string = never> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, HistogramSeries>();

  constructor(
    registry: Registry,
    readonly name: string,
    readonly help: string,
    private readonly buckets: readonly number[],
    private readonly label?: L,
  ) {
    // An unlabelled histogram shows its zeros from the start, as prom-client's do.
    if (label === undefined) this.seriesOf('');
    // The registry reads any metric through `get()`; this one keeps its own numbers.
    registry.registerMetric(this as unknown as Metric);
  }

  /** Observes `value` (seconds, say) in the series of `labels` (none for an unlabelled one). */
  observe(value: number): void;
  observe(labels: Record<L, string>, value: number): void;
  observe(labelsOrValue: Record<L, string> | number, maybeValue?: number): void {
    let key = '';
    let value: number;
    if (typeof labelsOrValue === 'number') {
      value = labelsOrValue;
    } else {
      key = this.label === undefined ? '' : labelsOrValue[this.label];
      value = maybeValue ?? 0;
    }
    if (!Number.isFinite(value)) return;
    const series = this.seriesOf(key);
    const { buckets } = this;
    let index = 0;
    while (index < buckets.length && value > (buckets[index] as number)) index++;
    series.counts[index] = (series.counts[index] ?? 0) + 1;
    series.sum += value;
    series.count++;
  }

  reset(): void {
    this.series.clear();
    if (this.label === undefined) this.seriesOf('');
  }

  private seriesOf(key: string): HistogramSeries {
    let series = this.series.get(key);
    if (!series) {
      series = { counts: new Array<number>(this.buckets.length + 1).fill(0), sum: 0, count: 0 };
      this.series.set(key, series);
    }
    return series;
  }

  /** For the text exposition: the bucket bound first, the series' own label after, as prom-client writes them. */
  getForPromString(): Promise<HistogramData> {
    const values: HistogramSample[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const [key, series] of this.series) {
      const sharedLabels: Record<string, string> =
        this.label === undefined ? {} : { [this.label]: key };
      let cumulative = 0;
      this.buckets.forEach((bound, index) => {
        cumulative += series.counts[index] ?? 0;
        values.push({
          labels: { le: bound },
          sharedLabels,
          value: cumulative,
          metricName: bucketName,
        });
      });
      values.push(
        { labels: { le: '+Inf' }, sharedLabels, value: series.count, metricName: bucketName },
        { labels: {}, sharedLabels, value: series.sum, metricName: `${this.name}_sum` },
        { labels: {}, sharedLabels, value: series.count, metricName: `${this.name}_count` },
      );
    }
    return Promise.resolve({
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values,
    });
  }

  /** Every sample with all its labels in one object (the JSON form). */
  async get(): Promise<HistogramData> {
    const data = await this.getForPromString();
    data.values = data.values.map(({ labels, sharedLabels, value, metricName }) => ({
      labels: { ...labels, ...sharedLabels },
      sharedLabels: {},
      value,
      metricName,
    }));
    return data;
  }
}
