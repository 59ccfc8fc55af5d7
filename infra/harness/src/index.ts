/**
 * The harness's public entry: everything tests, the chaos runner and the benchmark use from it.
 * Import `@taco/harness`, never a file under `src/`.
 */
export * from './client';
export * from './cluster';
export * from './managed-process';
export * from './redis-cluster';
export * from './wait';
