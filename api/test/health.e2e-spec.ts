import { ApiPath, DRAINING_MESSAGE } from '@taco/protocol';
import { HealthService } from '../src/health/health.service';
import { parsePrometheusText } from './support/prometheus-text';
import { startTestApp, type TestApp } from './support/test-app';

describe('Health and metrics', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('reports live and ready', async () => {
    const live = await fetch(`${t.baseUrl}${ApiPath.healthLive}`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${t.baseUrl}${ApiPath.healthReady}`);
    expect(ready.status).toBe(200);
  });

  it('counts connections, frames and errors in well-formed Prometheus text, with the process metrics', async () => {
    const ann = await t.join('metrics-room', 'Ann');
    ann.send({ type: 1, body: 'counted' });
    ann.send('not json');
    await ann.drain(50);
    const response = await fetch(`${t.baseUrl}${ApiPath.metrics}`);
    expect(response.status).toBe(200);
    const contentType = response.headers.get('content-type') ?? '';
    expect(contentType.split(/;\s*/).sort()).toEqual([
      'charset=utf-8',
      'text/plain',
      'version=0.0.4',
    ]);
    const families = parsePrometheusText(await response.text());
    const value = (name: string, labels: Record<string, string> = {}) =>
      families
        .get(name.replace(/_(count|sum|bucket)$/, ''))
        ?.samples.find(
          (sample) =>
            sample.name === name &&
            Object.entries(labels).every(([key, label]) => sample.labels[key] === label),
        )?.value;
    expect(value('process_resident_memory_bytes')).toBeGreaterThan(0);
    for (const name of ['nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
      expect(families.get(name)?.type).toBe('gauge');
    }
    expect(families.get('nodejs_gc_duration_seconds')?.type).toBe('histogram');
    expect(value('taco_connections')).toBe(1);
    expect(value('taco_ready')).toBe(1);
    expect(value('taco_frames_in_total', { type: '1' })).toBe(1);
    expect(value('taco_error_frames_total', { code: 'bad_frame' })).toBe(1);
    expect(value('taco_frames_out_total')).toBeGreaterThan(0);
    expect(value('taco_fanout_seconds_count')).toBeGreaterThan(0);
    expect(families.get('taco_fanout_seconds')?.samples.map((s) => s.labels.le)).toEqual(
      expect.arrayContaining(['0.001', '0.01', '0.1', '0.25', '+Inf']),
    );
    // Every series names its replica.
    for (const family of families.values()) {
      for (const sample of family.samples) expect(sample.labels.replica).toBe(t.config.replicaId);
    }
    await ann.close();
  });

  it('refuses malformed exposition text in its parser', () => {
    for (const bad of [
      'taco_x 1\n',
      '# TYPE taco_x counter\ntaco_x one\n',
      '# TYPE taco_x counter\ntaco_x{a="1" 1\n',
      '# TYPE taco_x counter\ntaco_x 1',
      '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_count 1\nh_sum 0\n',
    ]) {
      expect(() => parsePrometheusText(bad)).toThrow();
    }
  });

  it('answers 503 on ready while draining, and live stays 200', async () => {
    t.app.get(HealthService).startDraining();
    const ready = await fetch(`${t.baseUrl}${ApiPath.healthReady}`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ statusCode: 503, message: DRAINING_MESSAGE });
    expect((await fetch(`${t.baseUrl}${ApiPath.healthLive}`)).status).toBe(200);
    // Prometheus sees the same: taco_ready drops to 0.
    const metrics = parsePrometheusText(
      await (await fetch(`${t.baseUrl}${ApiPath.metrics}`)).text(),
    );
    expect(metrics.get('taco_ready')?.samples[0]?.value).toBe(0);
  });

  it('refuses new sockets with 503 before the upgrade while draining, so a balancer retries elsewhere', async () => {
    const client = t.connect('teal-otter', await t.token('teal-otter', 'Bob'));
    const status = await new Promise<number | undefined>((resolve) =>
      client.socket.once('unexpected-response', (request, response) => {
        request.destroy();
        resolve(response.statusCode);
      }),
    );
    expect(status).toBe(503);
  });
});
