/**
 * The harness's public entry: everything tests, the chaos runner and the benchmark use from it.
 * Import `@taco/harness`, never a file under `src/`.
 */
export * from './client/chat-member';
export * from './client/http';
export * from './client/raw-client';
export * from './cluster';
export * from './environment';
export * from './faults/chaos';
export * from './faults/slow-reader';
export * from './faults/storm';
export * from './faults/verdict';
export * from './ipc-process';
export * from './managed-process';
export * from './metrics';
export * from './probe';
export * from './proc-stats';
export * from './redis-cluster';
export * from './wait';
