import { readFileSync, writeFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type ApiErrorBody, RESTARTING_MESSAGE, securityHeaders } from '@taco/protocol';

export const NGINX_TEMPLATE = join(__dirname, 'nginx.conf.template');

/** Passive health check defaults: a replica failing twice within 10 s is skipped for 10 s. */
export const MAX_FAILS = 2;
export const FAIL_TIMEOUT = '10s';
/**
 * How long nginx keeps what an upstream name resolved to (Docker's DNS: one address per replica).
 * Docker Swarm drops a task from DNS 2 s before it sends the SIGTERM that drains it; nginx must
 * have looked again by then, or it still sends requests to a replica that has drained and gone
 * (each one waits out the 1 s connect timeout before the next replica is tried). With 2 s here,
 * that happened in a rolling update of three tasks.
 */
export const RESOLVE_EVERY = '1s';

export interface NginxConfigOptions {
  /** `listen` argument: a port (`80`) or `address:port` (`127.0.0.1:8080`). */
  listen: string;
  /** The api replicas, `host:port` each. */
  upstreams: readonly string[];
  /** The built web client (`web/dist`). */
  webRoot: string;
  pidFile: string;
  /** nginx's temp folders go below this. */
  tempDir: string;
  accessLog: string;
  errorLog: string;
  /** `user` for the worker processes; omit to leave the directive out. */
  user?: string;
  /**
   * `worker_processes` (default `auto`). In a container `auto` counts the node's cores, not the
   * container's CPU limit, so Kubernetes gives a number.
   */
  workerProcesses?: number;
  /** Render `daemon off;` (the cluster runner); leave out where the command line says so. */
  foreground?: boolean;
  /**
   * DNS server for upstream host names that change while nginx runs (docker compose scaling):
   * renders `resolver` and `server … resolve` (nginx ≥ 1.27.3).
   */
  resolver?: string;
}

/**
 * Headers every proxied location sets. nginx inherits `proxy_set_header` (and `add_header`) from
 * the server block only into locations that set none of their own, so each location repeats them.
 */
const PROXY_HEADERS: [string, string][] = [
  // The api compares a browser's Origin with Host: keep the port ($upstream_host, see the map).
  ['Host', '$upstream_host'],
  ['X-Forwarded-For', '$proxy_add_x_forwarded_for'],
  ['X-Forwarded-Proto', '$scheme'],
  ['X-Real-IP', '$remote_addr'],
];

/** What nginx answers on `/api/` when no replica does: the api's own error shape. */
export const API_UNAVAILABLE_BODY: ApiErrorBody = {
  statusCode: 503,
  error: STATUS_CODES[503] ?? 'Service Unavailable',
  message: RESTARTING_MESSAGE,
};

/** `value`, checked not to hold what would end or break the nginx string or word it goes in. */
function checked(name: string, value: string, forbidden = /[\s;{}"'#]/): string {
  if (value.length === 0 || forbidden.test(value)) {
    throw new Error(`${name} cannot go in the nginx config as it is: ${value}`);
  }
  return value;
}

/**
 * Renders the load-balancer config from `nginx.conf.template`. A placeholder alone on its line
 * whose value is a list renders as one line per item (none: the line goes), indented like the
 * line above it.
 */
export function renderNginxConfig(options: NginxConfigOptions): string {
  if (options.upstreams.length === 0) throw new Error('At least one upstream is required');
  const resolve = options.resolver === undefined ? '' : ' resolve';
  const values: Record<string, string | string[]> = {
    USER: options.user === undefined ? [] : [`user ${options.user};`],
    WORKER_PROCESSES: checked(
      'workerProcesses',
      String(options.workerProcesses ?? 'auto'),
      /^(?!auto$|[1-9]\d*$)/,
    ),
    DAEMON: options.foreground ? ['daemon off;'] : [],
    PID_FILE: checked('pidFile', options.pidFile),
    ERROR_LOG: checked('errorLog', options.errorLog),
    ACCESS_LOG: checked('accessLog', options.accessLog),
    TEMP_DIR: checked('tempDir', options.tempDir),
    WEB_ROOT: checked('webRoot', options.webRoot),
    LISTEN: checked('listen', options.listen),
    RESOLVER:
      options.resolver === undefined
        ? []
        : [
            '# Re-resolve upstream names every second while running, so scaled replicas join and leave.',
            '# Shorter than the 2 s Swarm waits between dropping a task from DNS and stopping it, so in a',
            '# rolling update nginx has let go of a replica before it drains and goes.',
            `resolver ${checked('resolver', options.resolver)} valid=${RESOLVE_EVERY} ipv6=off;`,
          ],
    UPSTREAM_SERVERS: options.upstreams.map(
      (address) =>
        `server ${checked('upstream', address)} max_fails=${MAX_FAILS} fail_timeout=${FAIL_TIMEOUT}${resolve};`,
    ),
    MAX_FAILS: String(MAX_FAILS),
    API_UNAVAILABLE_BODY: checked('body', JSON.stringify(API_UNAVAILABLE_BODY), /['\\$]/),
    FAIL_TIMEOUT,
    PROXY_HEADERS: PROXY_HEADERS.map(([name, value]) => `proxy_set_header ${name} ${value};`),
    SECURITY_HEADERS: securityHeaders().map(
      ([name, value]) => `add_header ${name} "${checked(name, value, /["\\$]/)}" always;`,
    ),
  };
  let indent = '';
  return readFileSync(NGINX_TEMPLATE, 'utf8')
    .split('\n')
    .flatMap((line) => {
      const list = values[/^\{\{([A-Z_]+)\}\}$/.exec(line)?.[1] ?? ''];
      if (Array.isArray(list)) return list.map((item) => indent + item);
      indent = /^\s*/.exec(line)?.[0] ?? '';
      return line.replace(/\{\{([A-Z_]+)\}\}/g, (_match, name: string) => {
        const value = values[name];
        if (typeof value !== 'string') throw new Error(`nginx template: no text for {{${name}}}`);
        return value;
      });
    })
    .join('\n');
}

/** The config baked into infra/docker/nginx.Dockerfile (nginx:1.27.5-alpine, compose network). */
export function dockerNginxConfig(): string {
  return renderNginxConfig({
    listen: '80',
    // Docker's DNS returns one address per `api` replica; `resolve` follows `--scale`.
    upstreams: ['api:3000'],
    resolver: '127.0.0.11',
    webRoot: '/usr/share/nginx/html',
    pidFile: '/var/run/nginx.pid',
    tempDir: '/var/cache/nginx',
    // The image links these two files to the container's stdout and stderr.
    accessLog: '/var/log/nginx/access.log',
    errorLog: '/var/log/nginx/error.log',
    user: 'nginx',
  });
}

/**
 * The config of the nginx pods (infra/kubernetes/base/nginx/nginx.conf, a ConfigMap): the same
 * image as compose, run as a non-root user on a read-only root filesystem, so it listens on 8080
 * (above 1024: the image's unprivileged `nginx` user, uid 101) and keeps its pid and temp files in
 * /tmp (an emptyDir); its logs go to the container's output. The upstream is the api's headless
 * Service (one DNS address per ready pod) by its full name, resolved again every 2 s through the
 * cluster DNS (nginx's resolver does not use the pod's search domains), so pods that become ready
 * join and pods that stop being ready, terminating ones included, leave without a reload.
 */
export function kubernetesNginxConfig(
  namespace = 'taco-chat',
  clusterDomain = 'cluster.local',
): string {
  return renderNginxConfig({
    listen: '8080',
    upstreams: [`api.${namespace}.svc.${clusterDomain}:3000`],
    // The cluster DNS by its Service name (kept by CoreDNS too), looked up once at start.
    resolver: `kube-dns.kube-system.svc.${clusterDomain}`,
    webRoot: '/usr/share/nginx/html',
    pidFile: '/tmp/nginx.pid',
    tempDir: '/tmp',
    accessLog: '/dev/stdout',
    errorLog: '/dev/stderr',
    foreground: true,
    // Workers per nginx pod; the Deployment's CPU limit matches it.
    workerProcesses: 2,
  });
}

/**
 * `tsx infra/nginx/render-nginx-config.ts [--kubernetes [--namespace ns] [--cluster-domain d]]
 * [--out file]`: prints (or writes) the docker config, or with `--kubernetes` the pods' config.
 */
function main(): void {
  const { values } = parseArgs({
    options: {
      kubernetes: { type: 'boolean' },
      namespace: { type: 'string' },
      'cluster-domain': { type: 'string' },
      out: { type: 'string' },
    },
  });
  const config = values.kubernetes
    ? kubernetesNginxConfig(values.namespace, values['cluster-domain'])
    : dockerNginxConfig();
  if (values.out === undefined) process.stdout.write(config);
  else writeFileSync(values.out, config);
}

if (require.main === module) main();
