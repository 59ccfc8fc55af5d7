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

/**
 * Runs the scenarios `--only` names (one, or several separated by commas, one after another), if
 * it names only scenarios; false when it names none. `--smoke` runs each at tiny sizes.
 */
export async function runScenario(argv: string[]): Promise<boolean> {
  const at = argv.findIndex((arg) => arg === '--only' || arg.startsWith('--only='));
  const arg = argv[at];
  const names = (arg?.includes('=') ? arg.slice(7) : (argv[at + 1] ?? '')).split(',');
  const scenarios = names.map((name) => SCENARIOS[name]);
  if (at < 0 || !scenarios.every((scenario) => scenario !== undefined)) return false;
  for (const scenario of scenarios) await scenario?.(argv);
  return true;
}
