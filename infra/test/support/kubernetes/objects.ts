/** What the checks read out of rendered objects, and the facts they hold them against. */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { CLOSE_HANDSHAKE_TIMEOUT_MS, DRAIN_TIMEOUT_MS } from '@taco/protocol';
import { type IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { type IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { type IJob } from 'kubernetes-models/batch/v1/Job';
import { type IContainer } from 'kubernetes-models/v1/Container';
import { type IPodSpec } from 'kubernetes-models/v1/PodSpec';
import { type IProbe } from 'kubernetes-models/v1/Probe';
import { REPO_ROOT } from '@taco/harness';
import { type KubeObject } from './render';

/** Seconds the api takes at most to drain after SIGTERM: its wait for sockets, then a peer's close. */
export const API_DRAIN_SECONDS = (DRAIN_TIMEOUT_MS + CLOSE_HANDSHAKE_TIMEOUT_MS) / 1000;
/** What the grace period must leave beyond preStop and the drain, for a slow node. */
export const GRACE_MARGIN_SECONDS = 5;
/** The environment variables the api reads (api/src/config/env.schema.ts), and Node's own. */
export function apiEnvironmentNames(): Set<string> {
  const schema = readFileSync(join(REPO_ROOT, 'api', 'src', 'config', 'env.schema.ts'), 'utf8');
  const names = [...schema.matchAll(/^ {2}([A-Z][A-Z0-9_]*)\?:/gm)].map((match) => match[1] ?? '');
  return new Set([...names, 'NODE_OPTIONS']);
}
/** The one Redis image (docker-compose.yml's): compose and Kubernetes run the same Redis. */
export function composeRedisImage(): string {
  const compose = readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8');
  const image = /^ {4}image: (redis:\S+)$/m.exec(compose)?.[1];
  if (!image) throw new Error('docker-compose.yml names no redis image');
  return image;
}

/** What a rendering is expected to run Redis on. */
export type RedisMode = 'single' | 'cluster' | 'external';

export type Workload = KubeObject & (IDeployment | IStatefulSet | IJob);

export const isWorkload = (object: KubeObject): object is Workload =>
  ['Deployment', 'StatefulSet', 'Job'].includes(object.kind);
export const podSpecOf = (workload: Workload): IPodSpec | undefined => workload.spec?.template.spec;
export const podLabelsOf = (workload: Workload): Record<string, string> =>
  workload.spec?.template.metadata?.labels ?? {};
export const containersOf = (workload: Workload): IContainer[] => [
  ...(podSpecOf(workload)?.initContainers ?? []),
  ...(podSpecOf(workload)?.containers ?? []),
];
export const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.keys(selector).length > 0 &&
  Object.entries(selector).every(([key, value]) => labels[key] === value);
export const envValue = (container: IContainer, name: string) =>
  container.env?.find((variable) => variable.name === name);

/** The port a probe or Service names, among a container's ports: by name or by number. */
export function containerPort(
  containers: readonly IContainer[],
  port: number | string,
): { containerPort: number; protocol?: string } | undefined {
  for (const container of containers) {
    const found = container.ports?.find((candidate) =>
      typeof port === 'number' ? candidate.containerPort === port : candidate.name === port,
    );
    if (found) return found;
  }
  return undefined;
}

export function probePort(probe: IProbe | undefined): number | string | undefined {
  return probe?.httpGet?.port ?? probe?.tcpSocket?.port ?? probe?.grpc?.port;
}

/** A parsed nginx.conf's one upstream server and its proxy timeouts (seconds). */
export function nginxFacts(config: string) {
  const seconds = (directive: string) => {
    const value = new RegExp(`^\\s*${directive} (\\d+)s;`, 'm').exec(config)?.[1];
    return value === undefined ? undefined : Number(value);
  };
  return {
    upstream: /^\s*server (\S+):(\d+) [^;]*resolve;/m.exec(config)?.slice(1, 3),
    resolver: /^\s*resolver (\S+) valid=/m.exec(config)?.[1],
    listen: Number(/^\s*listen (\d+);/m.exec(config)?.[1]),
    readTimeout: seconds('proxy_read_timeout'),
    sendTimeout: seconds('proxy_send_timeout'),
  };
}

export function isCidr(item: string): boolean {
  const [address = '', prefix, ...rest] = item.trim().split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return (
    prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128))
  );
}

/** Images by name as rendered (kustomize's `images:` set their tags in one place). */
export function imagesOf(objects: readonly KubeObject[]): string[] {
  return objects
    .filter(isWorkload)
    .flatMap((workload) => containersOf(workload).map((container) => container.image ?? ''));
}
