import { ApiPath, DRAINING_MESSAGE } from '@taco/protocol';
import { HealthService } from '../src/health/health.service';
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

  it('counts connections, frames and errors in Prometheus text', async () => {
    const ann = await t.join('metrics-room', 'Ann');
    ann.send({ type: 1, body: 'counted' });
    ann.send('not json');
    await ann.drain(50);
    const response = await fetch(`${t.baseUrl}${ApiPath.metrics}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toMatch(/^taco_connections\{replica="[^"]+"\} 1$/m);
    expect(text).toMatch(/^taco_frames_in_total\{replica="[^"]+",type="1"\} 1$/m);
    expect(text).toMatch(/^taco_error_frames_total\{replica="[^"]+",code="bad_frame"\} 1$/m);
    expect(text).toMatch(/^taco_frames_out_total\{replica="[^"]+"\} [1-9]\d*$/m);
    expect(text).toMatch(/^taco_fanout_seconds_count\{replica="[^"]+"\} [1-9]\d*$/m);
    await ann.close();
  });

  it('answers 503 on ready while draining, and live stays 200', async () => {
    t.app.get(HealthService).startDraining();
    const ready = await fetch(`${t.baseUrl}${ApiPath.healthReady}`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ statusCode: 503, message: DRAINING_MESSAGE });
    expect((await fetch(`${t.baseUrl}${ApiPath.healthLive}`)).status).toBe(200);
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
