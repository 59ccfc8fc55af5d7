/**
 * The scaled topology without Docker: `npm run cluster -- --replicas 3 --port 8080` starts
 * redis-server (or, with `--redis-cluster`, a Redis Cluster of 3 masters and 3 replicas), N api
 * replicas and nginx on 127.0.0.1, prints the URL and runs until Ctrl-C.
 */
import { type Cluster, startCluster } from './cluster';
import { intOption, pickEnvironment, runCli } from './environment';

/** Passed on to the replicas from this environment when set. */
const PASSED_THROUGH = [
  ...['LOG_LEVEL', 'HISTORY_MAX', 'ROOM_TTL', 'TOKEN_TTL', 'CREDENTIALS_PER_MINUTE'],
  ...['CONNECTIONS_PER_IP', 'ALLOWED_ORIGINS', 'REDIS_WAIT_REPLICAS', 'REDIS_WAIT_TIMEOUT_MS'],
];

const USAGE = `Usage: npm run cluster -- [--replicas N] [--port PORT] [--web-dist DIR] [--redis-cluster]

  --replicas N     api replicas behind nginx (default 3)
  --port PORT      nginx port on 127.0.0.1 (default: a free port)
  --web-dist DIR   built web client to serve (default web/dist)
  --redis-cluster  a Redis Cluster (3 masters + 3 replicas, redis-cli --cluster create)
                   instead of one redis-server; the replicas get REDIS_CLUSTER_NODES

Replicas get ${PASSED_THROUGH.slice(0, 5).join(', ')},
${PASSED_THROUGH.slice(5, -1).join(', ')} and ${PASSED_THROUGH.at(-1)} from this
environment when set.`;

const OPTIONS = {
  replicas: { type: 'string' },
  port: { type: 'string' },
  'web-dist': { type: 'string' },
  'redis-cluster': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

runCli(USAGE, OPTIONS, async (values) => {
  // Set once started; a signal before that has no handles to stop.
  const started: { cluster?: Cluster } = {};
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the cluster…`);
    // During start-up there are no handles yet: exiting SIGKILLs whatever already started.
    if (!started.cluster) process.exit(130);
    void started.cluster.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);

  const cluster = await startCluster({
    replicas: intOption('replicas', values.replicas, 3, 1, 64),
    port: intOption('port', values.port, undefined, 1, 65535),
    webDist: values['web-dist'],
    redisCluster: values['redis-cluster'] === true,
    env: pickEnvironment(PASSED_THROUGH),
    output: 'stream',
  });
  started.cluster = cluster;

  for (const replica of cluster.replicas) {
    void replica.exited.then((exit) => {
      if (!stopping) {
        console.log(`[cluster] ${replica.id} exited (${exit.signal ?? `code ${exit.code}`})`);
      }
    });
  }

  console.log(
    [
      '',
      `🌮 Taco Chat cluster is up: ${cluster.url}`,
      `   ${cluster.replicas.length} replica(s): ${cluster.replicas
        .map((replica) => `${replica.id} ${replica.url}`)
        .join(', ')}`,
      cluster.redisCluster
        ? `   redis cluster: ${cluster.redisCluster.seeds} (3 masters, 3 replicas)`
        : `   redis: ${cluster.redis?.url ?? 'none'}`,
      `   nginx logs: ${cluster.nginx.accessLog}, ${cluster.nginx.errorLog}`,
      '   Ctrl-C stops everything.',
    ].join('\n'),
  );
});
