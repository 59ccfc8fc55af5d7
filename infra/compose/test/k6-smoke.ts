/**
 * The k6 step of the compose stack suite (stack.compose-spec.ts): the compose file's k6 service
 * runs loadtest/k6/chat.js, and its summary's own metrics become the suite's figures.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ComposeProject } from '../../test/support/compose';
import { ARTIFACTS } from './stack-checks';

/** The smoke profile runs for well under a minute; the bound leaves room for a slow machine. */
export const K6_TIMEOUT_MS = 240_000;

/** `--profile loadtest run --rm k6` of the chat script (PROFILE=smoke), its summary into `out`. */
export function runK6Smoke(compose: ComposeProject, out: string) {
  // The k6 image runs as its own user: let it write the summary.
  chmodSync(out, 0o777);
  return compose.run(
    [
      '--profile',
      'loadtest',
      'run',
      '--rm',
      '-e',
      'PROFILE=smoke',
      '-v',
      `${out}:/out`,
      'k6',
      'run',
      '--quiet',
      '--summary-export=/out/summary.json',
      '/scripts/k6/chat.js',
    ],
    { timeoutMs: K6_TIMEOUT_MS, allowFailure: true },
  );
}

/** The k6 chat script's own metrics (loadtest/k6/run.js) in its summary, kept for CI. */
export function k6Figures(out: string, code: number, stdout: string, stderr: string) {
  if (!existsSync(join(out, 'summary.json'))) {
    throw new Error(
      `k6 wrote no summary (exit ${code}):\n${stdout.slice(-3000)}\n${stderr.slice(-3000)}`,
    );
  }
  const summaryText = readFileSync(join(out, 'summary.json'), 'utf8');
  writeFileSync(join(ARTIFACTS, 'k6-summary.json'), summaryText);
  const summary = JSON.parse(summaryText) as {
    metrics: Record<string, Record<string, number> | undefined>;
  };
  // The scripts' own metrics (loadtest/k6/run.js), never k6's human output.
  const metric = (name: string) => summary.metrics[name] ?? {};
  const latency = metric('chat_delivery_latency');
  const k6 = {
    exit: code,
    sent: metric('chat_messages_sent').count ?? 0,
    received: metric('chat_messages_received').count ?? 0,
    lost: metric('chat_messages_lost').count ?? 0,
    p95Ms: latency['p(95)'],
    p99Ms: latency['p(99)'],
    errorFrames: metric('chat_error_frames').count ?? 0,
    unexpectedCloses: metric('chat_unexpected_closes').count ?? 0,
  };
  return { summary, k6 };
}
