/**
 * The bench's scenarios, each a run of its own rather than a load step: `--only <scenario>` runs
 * one of them instead of the workloads (its options are its own, see each file).
 */
import { runConnectCost } from './connect-cost';
import { runSlowReader } from './slow-reader';
import { runStorm } from './storm';

const SCENARIOS: Record<string, (argv: string[]) => Promise<void>> = {
  connectCost: runConnectCost,
  slowReader: runSlowReader,
  storm: runStorm,
};

/** Runs the scenario `--only` names, if it names one; false when it names none. */
export async function runScenario(argv: string[]): Promise<boolean> {
  const at = argv.findIndex((arg) => arg === '--only' || arg.startsWith('--only='));
  const arg = argv[at];
  const name = arg === undefined ? undefined : arg.includes('=') ? arg.slice(7) : argv[at + 1];
  const scenario = name === undefined ? undefined : SCENARIOS[name];
  if (!scenario) return false;
  await scenario(argv);
  return true;
}
