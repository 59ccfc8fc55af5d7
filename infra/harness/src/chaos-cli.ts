import { parseArgs } from 'node:util';
import { formatReport, runChaos, writeReport } from './faults';

/**
 * `npm run chaos [-- --short] [--redis-wait-replicas N]`: every fault and abuse scenario, then the
 * report. `--redis-wait-replicas 0` runs the Redis Cluster scenarios without durable
 * acknowledgement (to measure what a master's death loses without it).
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      short: { type: 'boolean' },
      'redis-wait-replicas': { type: 'string' },
    },
  });
  const waitReplicas = values['redis-wait-replicas'];
  if (waitReplicas !== undefined && !/^\d{1,2}$/.test(waitReplicas)) {
    throw new Error(`--redis-wait-replicas must be a whole number (got "${waitReplicas}")`);
  }
  const report = await runChaos(
    {
      short: values.short === true,
      ...(waitReplicas === undefined ? {} : { redisWaitReplicas: Number(waitReplicas) }),
    },
    (line) => process.stdout.write(`${line}\n`),
  );
  process.stdout.write(`\n${formatReport(report)}\n`);
  process.stdout.write(`Report written to ${writeReport(report)}\n`);
  process.exitCode = report.passed ? 0 : 1;
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
