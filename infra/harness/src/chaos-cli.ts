import { parseArgs } from 'node:util';
import { intOption } from './environment';
import { formatReport, runChaos, writeReport } from './faults/chaos';

/** `npm run chaos`: every fault and abuse scenario, then the report. */
const USAGE = `Usage: npm run chaos -- [--short] [--redis-wait-replicas N]

  --short                  short runs for CI: fewer clients and inputs, shorter outages
  --redis-wait-replicas N  REDIS_WAIT_REPLICAS of the Redis Cluster scenarios (default 1); 0 runs
                           them without durable acknowledgement, to measure what a master's
                           death loses without it`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      short: { type: 'boolean' },
      'redis-wait-replicas': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const report = await runChaos(
    {
      short: values.short === true,
      redisWaitReplicas: intOption('redis-wait-replicas', values['redis-wait-replicas'], 1, 0, 99),
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
