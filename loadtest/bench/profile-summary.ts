/**
 * Summarizes V8 CPU profiles (`node --cpu-prof`, as `npm run bench -- --profile DIR` writes them):
 * for each profile, the functions with the most self time, and the share of time per package.
 *
 *   tsx loadtest/bench/profile-summary.ts DIR [TOP]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What this reads of a V8 CPU profile. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  startTime: number;
  endTime: number;
  samples: number[];
}

function where(url: string): string {
  if (url === '') return '(native)';
  // The package of the last node_modules/ in the path (`@scope/name` or `name`).
  const installed = /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (installed) return installed[1] as string;
  if (url.startsWith('node:')) return 'node core';
  const repo = /\/(api|loadtest|protocol)\/(?:dist|src|peers)?\/?(.*)$/.exec(url);
  return repo ? `${repo[1]}/${repo[2]}` : url;
}

function summarize(file: string, top: number): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const [self, byPackage] = [new Map<string, number>(), new Map<string, number>()];
  for (const id of profile.samples) {
    const node = byId.get(id);
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const name = `${functionName || '(anonymous)'}  ${where(url)}:${lineNumber + 1}`;
    self.set(name, (self.get(name) ?? 0) + 1);
    const pkg = url === '' ? functionName || '(native)' : (where(url).split('/')[0] ?? url);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + 1);
  }
  const total = profile.samples.length;
  const idle = self.get('(idle)  (native):0') ?? 0;
  const busy = Math.max(1, total - idle);
  const seconds = (profile.endTime - profile.startTime) / 1e6;
  const pct = (count: number) => `${((100 * count) / busy).toFixed(1).padStart(5)} %`;
  /** The `most` entries of `counts` with the most samples, idle time left out. */
  const ranked = (counts: Map<string, number>, most: number) =>
    [...counts.entries()]
      .filter(([name]) => !name.startsWith('(idle)'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, most)
      .map(([name, count]) => `    ${pct(count)}  ${name}`);
  const lines = [
    `\n${file}: ${seconds.toFixed(1)} s profiled, ${((100 * busy) / Math.max(1, total)).toFixed(0)} % busy; shares of busy time:`,
    '  by package:',
    ...ranked(byPackage, 12),
    '  by function (self time):',
    ...ranked(self, top),
  ];
  return lines.join('\n');
}

const [dir, topText] = process.argv.slice(2);
if (!dir) {
  process.stderr.write('Usage: tsx loadtest/bench/profile-summary.ts DIR [TOP]\n');
  process.exitCode = 2;
} else {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .sort();
  for (const name of files) console.log(summarize(join(dir, name), Number(topText ?? 25)));
}
