import { intOption, runCli } from './environment';
import { formatReport, runChaos, writeReport } from './faults/chaos';

/** `npm run chaos`: every fault and abuse scenario, then the report. */
const USAGE = `Usage: npm run chaos -- [--short] [--redis-wait-replicas N]

  --short                  short runs for CI: fewer clients and inputs, shorter outages
  --redis-wait-replicas N  REDIS_WAIT_REPLICAS of the Redis Cluster scenarios (default 1); 0 runs
                           them without durable acknowledgement, to measure what a master's
                           death loses without it`;

const OPTIONS = {
  short: { type: 'boolean' },
  'redis-wait-replicas': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

runCli(USAGE, OPTIONS, async (values) => {
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
});
