import { formatReport, runChaos, writeReport } from './chaos';

/** `npm run chaos [-- --short]`: every fault and abuse scenario, then the report. */
async function main(): Promise<void> {
  const short = process.argv.includes('--short');
  const report = await runChaos({ short }, (line) => process.stdout.write(`${line}\n`));
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
