import { readFileSync, writeFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type ApiErrorBody, RESTARTING_MESSAGE, securityHeaders } from '@taco/protocol';

export const NGINX_TEMPLATE = join(__dirname, 'nginx.conf.template');

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

/** A placeholder: `{{NAME}}`. */
const PLACEHOLDER = /\{\{([A-Z_]+)\}\}/g;

/**
 * Renders the load-balancer config from `nginx.conf.template`. A placeholder whose value is a list
 * repeats its line once per item (none: the line goes).
 */
export function renderNginxConfig(options: NginxConfigOptions): string {
  if (options.upstreams.length === 0) throw new Error('At least one upstream is required');
  const { user, resolver } = options;
  const values: Record<string, string | string[]> = {
    USER: user === undefined ? [] : [user],
    WORKER_PROCESSES: checked(
      'workerProcesses',
      String(options.workerProcesses ?? 'auto'),
      /^(?!auto$|[1-9]\d*$)/,
    ),
    DAEMON: options.foreground ? ['off'] : [],
    PID_FILE: checked('pidFile', options.pidFile),
    ERROR_LOG: checked('errorLog', options.errorLog),
    ACCESS_LOG: checked('accessLog', options.accessLog),
    TEMP_DIR: checked('tempDir', options.tempDir),
    WEB_ROOT: checked('webRoot', options.webRoot),
    LISTEN: checked('listen', options.listen),
    RESOLVER: resolver === undefined ? [] : [checked('resolver', resolver)],
    RESOLVE: resolver === undefined ? '' : ' resolve',
    UPSTREAM: options.upstreams.map((address) => checked('upstream', address)),
    API_UNAVAILABLE_BODY: checked('body', JSON.stringify(API_UNAVAILABLE_BODY), /['\\$]/),
    PROXY_HEADER: PROXY_HEADERS.map(([name, value]) => `${name} ${value}`),
    SECURITY_HEADER: securityHeaders().map(
      ([name, value]) => `${name} "${checked(name, value, /["\\$]/)}"`,
    ),
  };
  return readFileSync(NGINX_TEMPLATE, 'utf8')
    .split('\n')
    .flatMap((line) => {
      // The scalars go in; a list's place is marked, then the line is written once per item.
      let items = [''];
      const filled = line.replace(PLACEHOLDER, (_match, name: string) => {
        const value = values[name];
        if (value === undefined) throw new Error(`nginx template: no value for {{${name}}}`);
        if (typeof value === 'string') return value;
        items = value;
        return '\0';
      });
      return items.map((item) => filled.replace('\0', item));
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
