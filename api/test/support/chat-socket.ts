import { FrameType, type ServerMessageFrame } from '@taco/protocol';
import { isLive, type RawClient } from '@taco/harness';
import { MetricsService } from '../../src/metrics/metrics.service';
import { type TestApp } from './test-app';

/** How many connections the app has closed with `code` (its `taco_closes_total` metric). */
export async function closesWith(app: TestApp, code: number): Promise<number> {
  const closes = app.app.get(MetricsService).registry.getSingleMetric('taco_closes_total');
  const sample = (await closes?.get())?.values.find((value) => value.labels.code === code);
  return sample?.value ?? 0;
}

/** Sends a message and waits for its copy to come back (the one with `clientId`, if given). */
export async function say(
  client: RawClient,
  body: string,
  clientId?: string,
): Promise<ServerMessageFrame> {
  client.send({ type: FrameType.Message, body, client_id: clientId });
  return client.next<ServerMessageFrame>(
    (frame) => isLive(frame) && (clientId === undefined || frame.client_id === clientId),
  );
}

/** A maker of room names unique within one application: `room-1`, `room-2`… */
export function roomNames(): () => string {
  let counter = 0;
  return () => `room-${++counter}`;
}
