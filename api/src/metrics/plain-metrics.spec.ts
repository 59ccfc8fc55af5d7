import { Histogram, Registry } from 'prom-client';
import { PlainCounter, PlainHistogram, PlainLabeledCounter } from './plain-metrics';

const BUCKETS = [0.001, 0.01, 0.1];

describe('plain metrics', () => {
  it('writes a histogram exactly as prom-client does for the same observations', async () => {
    const plain = new Registry();
    const reference = new Registry();
    for (const registry of [plain, reference]) registry.setDefaultLabels({ replica: 'r1' });
    const fast = new PlainHistogram(plain, 'x_seconds', 'Help.', BUCKETS);
    const labelled = new PlainHistogram(plain, 'y_seconds', 'Help.', BUCKETS, 'command');
    const slow = new Histogram({
      name: 'x_seconds',
      help: 'Help.',
      buckets: BUCKETS,
      registers: [reference],
    });
    const slowLabelled = new Histogram({
      name: 'y_seconds',
      help: 'Help.',
      buckets: BUCKETS,
      labelNames: ['command'],
      registers: [reference],
    });
    for (const value of [0, 0.001, 0.0011, 0.05, 0.1, 3]) {
      fast.observe(value);
      slow.observe(value);
      labelled.observe({ command: value > 0.01 ? 'append' : 'history' }, value);
      slowLabelled.observe({ command: value > 0.01 ? 'append' : 'history' }, value);
    }
    expect(await plain.metrics()).toBe(await reference.metrics());
  });

  it('shows an unlabelled histogram with zeros before anything is observed', async () => {
    const registry = new Registry();
    new PlainHistogram(registry, 'x_seconds', 'Help.', BUCKETS);
    expect(await registry.metrics()).toContain('x_seconds_count 0');
  });

  it('shows the initial label values of a labelled counter at 0 before anything is counted', async () => {
    const registry = new Registry();
    const closes = new PlainLabeledCounter(registry, 'closes_total', 'Help.', 'code', [1013, 'x']);
    let text = await registry.metrics();
    expect(text).toContain('closes_total{code="1013"} 0');
    expect(text).toContain('closes_total{code="x"} 0');
    closes.inc({ code: 1013 }, 2);
    text = await registry.metrics();
    expect(text).toContain('closes_total{code="1013"} 2');
    expect(text).toContain('closes_total{code="x"} 0');
  });

  it('hands counts to prom-client on every scrape, adding up across scrapes', async () => {
    const registry = new Registry();
    const frames = new PlainCounter(registry, 'frames_total', 'Help.');
    const closes = new PlainLabeledCounter(registry, 'closes_total', 'Help.', 'code');
    frames.inc();
    frames.inc(4);
    closes.inc({ code: 1013 });
    expect(await registry.metrics()).toContain('frames_total 5');
    frames.inc(2);
    closes.inc({ code: 1013 });
    closes.inc({ code: 'timeout' }, 3);
    const text = await registry.metrics();
    expect(text).toContain('frames_total 7');
    expect(text).toContain('closes_total{code="1013"} 2');
    expect(text).toContain('closes_total{code="timeout"} 3');
  });
});
