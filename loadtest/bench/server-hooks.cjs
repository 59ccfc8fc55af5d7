// Preloaded into every server process of the benchmark (NODE_OPTIONS="--expose-gc --require …"),
// the same for all three servers:
// - SIGUSR2 runs a full garbage collection, then writes the process's RSS less V8's young
//   generation to `<tmpdir>/taco-bench-memory-<pid>` (the idle workload reads it and removes it),
//   so memory is read after garbage settles. The young generation grows with the allocation rate
//   (from 16 to 32 MiB at some point of a run), not with what the process holds: counted, it
//   moved the idle workload's per-connection figure by up to 4 KiB between runs;
// - with BENCH_PROFILE_DIR, records a V8 CPU profile (--cpu-prof is not allowed in NODE_OPTIONS)
//   and writes it there on SIGTERM or exit.
'use strict';
const { Session } = require('node:inspector');
const { mkdirSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { getHeapSpaceStatistics } = require('node:v8');

process.on('SIGUSR2', () => {
  globalThis.gc();
  const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  const bytes = process.memoryUsage.rss() - (young ? young.space_size : 0);
  writeFileSync(join(tmpdir(), `taco-bench-memory-${process.pid}`), String(bytes));
});

const dir = process.env.BENCH_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 500 });
  session.post('Profiler.start');
  // The session answers at once; once stopped, a second stop (on exit after SIGTERM) errors.
  const write = () =>
    session.post('Profiler.stop', (error, result) => {
      if (error || !result) return;
      mkdirSync(dir, { recursive: true });
      const name = `${process.env.REPLICA_ID || 'peer'}-${process.env.PORT || ''}-${process.pid}`;
      writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(result.profile));
    });
  process.once('SIGTERM', write);
  process.on('exit', write);
}
