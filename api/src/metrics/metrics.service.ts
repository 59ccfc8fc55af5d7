import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { CloseCode, ErrorCode } from '@taco/protocol';
import { AppConfig } from '../config/app-config';
import { PlainCounter, PlainHistogram, PlainLabeledCounter } from './plain-metrics';

/** Sub-millisecond steps for local work, then 1–250 ms. */
const FANOUT_BUCKETS_SECONDS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
];
/**
 * How often the event-loop delay is sampled (ms), for `nodejs_eventloop_lag_*`. prom-client's
 * default, 10 ms, wakes an idle replica 100 times a second (about 3 % of its CPU at a few messages
 * a second per room); at 100 ms any stall over 100 ms is still seen. Until the first sample, the
 * lag's mean reads NaN.
 */
const EVENT_LOOP_SAMPLE_MS = 100;
/**
 * The codes `taco_closes_total` shows from the start (at 0): every close the server makes, and
 * `timeout` for a socket dropped after missing pongs. (1000, 1001 and 1006 are the client's.)
 */
const SERVER_CLOSE_CODES = [
  CloseCode.Policy,
  CloseCode.TooBig,
  CloseCode.Restart,
  CloseCode.TryAgainLater,
  CloseCode.Unauthorized,
  CloseCode.NameTaken,
  CloseCode.RateLimited,
  'timeout',
] as const;
/** A Redis round trip on loopback takes well under a millisecond; 1–250 ms is what matters. */
const REDIS_BUCKETS_SECONDS = [0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25];

/**
 * The process's Prometheus metrics (prom-client): Node's and the process's own (memory, CPU,
 * event-loop lag, GC) and Taco Chat's, every series labelled with the replica. Each application
 * has its own registry, so several can live in one process (tests).
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  readonly connections = new Gauge({
    ...this.family('taco_connections'),
    help: 'Open WebSocket connections.',
  });
  /** Asked at each scrape; the health module supplies it (see `reportReadiness`). */
  private readiness: () => Promise<boolean> = () => Promise.resolve(true);
  readonly ready = new Gauge({
    ...this.family('taco_ready'),
    help: '1 while the replica would answer 200 on /api/health/ready (not draining, storage writable), else 0; checked at each scrape.',
    collect: async () => {
      this.ready.set((await this.readiness()) ? 1 : 0);
    },
  });
  // Touched per frame or per room event: plain numbers (see plain-metrics.ts).
  readonly framesIn = new PlainLabeledCounter(
    this.registry,
    'taco_frames_in_total',
    'Frames received from clients, by frame type.',
    'type',
  );
  readonly framesOut = new PlainCounter(
    this.registry,
    'taco_frames_out_total',
    'Frames sent to clients.',
  );
  readonly errorFrames = new PlainLabeledCounter(
    this.registry,
    'taco_error_frames_total',
    'Error frames sent, by error code.',
    'code',
    Object.values(ErrorCode),
  );
  readonly duplicateCopies = new PlainCounter(
    this.registry,
    'taco_duplicate_copies_dropped_total',
    'Copies of a stored message not sent to a connection that had been sent that message already (a delivery path that offered it twice, caught before the socket).',
  );
  readonly closes = new PlainLabeledCounter(
    this.registry,
    'taco_closes_total',
    'Connections closed by the server, by close code.',
    'code',
    SERVER_CLOSE_CODES,
  );
  readonly httpRateLimited = this.counter(
    'taco_http_rate_limited_total',
    'HTTP calls answered 429.',
  );
  readonly unconfirmedMessages = this.counter(
    'taco_unconfirmed_messages_total',
    'Messages acknowledged before REDIS_WAIT_REPLICAS Redis replicas confirmed holding them (the wait ran out, or the master failed and the one now serving the room holds them).',
  );
  readonly resubscribes = this.counter(
    'taco_room_resubscribes_total',
    'Rooms subscribed again, each followed by a gap fill, by cause: lost (a probe through the room channel did not come back) or renewed (the subscriber connection was renewed).',
    ['cause'],
  );
  readonly fanoutSeconds = new PlainHistogram(
    this.registry,
    'taco_fanout_seconds',
    'Time to hand one room event to every local connection.',
    FANOUT_BUCKETS_SECONDS,
  );
  readonly redisSeconds = new PlainHistogram(
    this.registry,
    'taco_redis_round_trip_seconds',
    'Time from sending a chat command to Redis to its reply, by command.',
    REDIS_BUCKETS_SECONDS,
    'command',
  );

  constructor(config: AppConfig) {
    this.registry.setDefaultLabels({ replica: config.replicaId });
    collectDefaultMetrics({
      register: this.registry,
      eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS,
    });
  }

  /** Makes `taco_ready` ask `isReady` at each scrape. */
  reportReadiness(isReady: () => Promise<boolean>): void {
    this.readiness = isReady;
  }

  /** The Prometheus text exposition of every metric. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private family<L extends string>(name: string, labelNames: readonly L[] = []) {
    return { name, labelNames, registers: [this.registry] };
  }

  private counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []) {
    return new Counter({ ...this.family(name, labelNames), help });
  }
}
