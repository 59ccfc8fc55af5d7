// Every infra suite starts real processes (nginx, redis-server, api replicas) and waits on
// restarts: a generous, bounded time per test. (`testTimeout` in a project config is ignored
// when the suites run as a project of the root config.)
jest.setTimeout(120_000);
