import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { ApiPath, CLOSE_HANDSHAKE_TIMEOUT_MS, PING_INTERVAL_MS } from '@taco/protocol';
import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { type IStatefulSet, StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import {
  HorizontalPodAutoscaler,
  type IHorizontalPodAutoscaler,
} from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { type IJob, Job } from 'kubernetes-models/batch/v1/Job';
import { type IIngress, Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import {
  type IPodDisruptionBudget,
  PodDisruptionBudget,
} from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap, type IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { type IContainer } from 'kubernetes-models/v1/Container';
import { type IPodSpec } from 'kubernetes-models/v1/PodSpec';
import { type IProbe } from 'kubernetes-models/v1/Probe';
import { type IService, Service } from 'kubernetes-models/v1/Service';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Secret } from 'kubernetes-models/v1/Secret';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';
import { DRAIN_TIMEOUT_MS } from '../../api/src/chat/drain-timeout';
import { REPO_ROOT } from '@taco/harness';

export const KUBERNETES_DIR = join(REPO_ROOT, 'infra', 'kubernetes');

/** What `kubectl kustomize` renders: any Kubernetes object. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [field: string]: unknown;
}

/**
 * The kubectl whose `kustomize` renders the manifests: kubectl ≥ 1.27 carries Kustomize v5.
 * Debian's `kubernetes-client` (1.20, Kustomize v2) is too old to read them.
 */
export function kustomizeVersion(): string {
  let output: string;
  try {
    output = execFileSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
  } catch (error) {
    throw new Error(
      'kubectl is not installed: the Kubernetes manifests are rendered with `kubectl kustomize` ' +
        '(kubectl ≥ 1.27, which carries Kustomize v5; Debian’s kubernetes-client is too old). ' +
        `(${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const version = /Kustomize Version: v?(\d+)\.(\d+)\.(\d+)/.exec(output);
  if (!version || Number(version[1]) < 5) {
    throw new Error(
      `kubectl carries no Kustomize v5 (it says: ${output.trim()}); use kubectl ≥ 1.27`,
    );
  }
  return version.slice(1).join('.');
}

/** `kubectl kustomize <dir>`, parsed. */
export function renderKustomization(dir: string): KubeObject[] {
  const yaml = execFileSync('kubectl', ['kustomize', dir], {
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  return parseAllDocuments(yaml).map((document) => {
    if (document.errors.length > 0) throw new Error(document.errors.join('\n'));
    return document.toJSON() as KubeObject;
  });
}

export const nameOf = (object: KubeObject): string => `${object.kind}/${object.metadata.name}`;

// --- Schema validation ------------------------------------------------------------------------

interface Validatable {
  validate(): void;
}
type Model = new (data: never) => Validatable;

/**
 * Every kind the manifests may hold: the model that validates it against the Kubernetes OpenAPI
 * schema (kubernetes-models), and its interface, which the strict check below compiles against.
 */
const KINDS: Record<string, { model: Model; module: string; type: string }> = {
  'v1/Namespace': kind(Namespace, 'v1/Namespace'),
  'v1/ConfigMap': kind(ConfigMap, 'v1/ConfigMap'),
  'v1/Secret': kind(Secret, 'v1/Secret'),
  'v1/Service': kind(Service, 'v1/Service'),
  'apps/v1/Deployment': kind(Deployment, 'apps/v1/Deployment'),
  'apps/v1/StatefulSet': kind(StatefulSet, 'apps/v1/StatefulSet'),
  'batch/v1/Job': kind(Job, 'batch/v1/Job'),
  'policy/v1/PodDisruptionBudget': kind(PodDisruptionBudget, 'policy/v1/PodDisruptionBudget'),
  'autoscaling/v2/HorizontalPodAutoscaler': kind(
    HorizontalPodAutoscaler,
    'autoscaling/v2/HorizontalPodAutoscaler',
  ),
  'networking.k8s.io/v1/Ingress': kind(Ingress, 'networking.k8s.io/v1/Ingress'),
};

function kind(model: Model, path: string): { model: Model; module: string; type: string } {
  return { model, module: `kubernetes-models/${path}`, type: `I${path.split('/').at(-1)}` };
}

const kindKey = (object: KubeObject) => `${object.apiVersion}/${object.kind}`;

/** Every object against its kind's Kubernetes schema: the problems found. */
export function schemaProblems(objects: readonly KubeObject[]): string[] {
  const problems: string[] = [];
  for (const object of objects) {
    const kind = KINDS[kindKey(object)];
    if (!kind) {
      problems.push(`${nameOf(object)}: no schema for ${kindKey(object)}`);
      continue;
    }
    try {
      new kind.model(object as never).validate();
    } catch (error) {
      problems.push(`${nameOf(object)}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return problems;
}

/**
 * Fields Kubernetes does not know (a misspelt `readinesProbe` would pass the schema, which allows
 * unknown fields, and the probe would silently be missing): every object is compiled as an object
 * literal of its kind's TypeScript interface, whose excess-property check names such fields.
 */
export function unknownFieldProblems(objects: readonly KubeObject[]): string[] {
  const file = join(KUBERNETES_DIR, '__rendered-manifests__.ts');
  const imports = new Map<string, string>();
  const lines = objects.map((object, index) => {
    const kind = KINDS[kindKey(object)];
    if (!kind) return `// ${nameOf(object)}: no schema`;
    imports.set(kind.type, kind.module);
    return `export const object${index}: ${kind.type} = ${JSON.stringify(object)};`;
  });
  const source = [
    ...[...imports].map(([type, module]) => `import type { ${type} } from '${module}';`),
    ...lines,
  ].join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.getSourceFile = (name, version, ...rest) =>
    name === file
      ? ts.createSourceFile(name, source, version)
      : getSourceFile(name, version, ...rest);
  host.fileExists = (name) => name === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const line =
      diagnostic.file && diagnostic.start !== undefined
        ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line
        : -1;
    const object = objects[line - imports.size];
    return `${object ? nameOf(object) : 'manifests'}: ${text}`;
  });
}

// --- What the project needs of them -------------------------------------------------------------

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

type Workload = KubeObject & (IDeployment | IStatefulSet | IJob);

const isWorkload = (object: KubeObject): object is Workload =>
  ['Deployment', 'StatefulSet', 'Job'].includes(object.kind);
const podSpecOf = (workload: Workload): IPodSpec | undefined => workload.spec?.template.spec;
const podLabelsOf = (workload: Workload): Record<string, string> =>
  workload.spec?.template.metadata?.labels ?? {};
const containersOf = (workload: Workload): IContainer[] => [
  ...(podSpecOf(workload)?.initContainers ?? []),
  ...(podSpecOf(workload)?.containers ?? []),
];
const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.keys(selector).length > 0 &&
  Object.entries(selector).every(([key, value]) => labels[key] === value);
const envValue = (container: IContainer, name: string) =>
  container.env?.find((variable) => variable.name === name);

/** The port a probe or Service names, among a container's ports: by name or by number. */
function containerPort(
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

function probePort(probe: IProbe | undefined): number | string | undefined {
  return probe?.httpGet?.port ?? probe?.tcpSocket?.port ?? probe?.grpc?.port;
}

/** A parsed nginx.conf's one upstream server and its proxy timeouts (seconds). */
function nginxFacts(config: string) {
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

/**
 * What the project needs of a rendering, beyond the schema: every cross-object reference holds,
 * and each rule of the shutdown order, the security context and the sizing is kept. Returns the
 * problems, one line each (none: all is well).
 */
export function manifestProblems(objects: readonly KubeObject[], redis: RedisMode): string[] {
  const problems: string[] = [];
  const problem = (object: KubeObject | string, text: string) =>
    problems.push(`${typeof object === 'string' ? object : nameOf(object)}: ${text}`);
  const byKind = <T>(kind: string) =>
    objects.filter((object) => object.kind === kind) as (KubeObject & T)[];
  const workloads = objects.filter(isWorkload);
  const services = byKind<IService>('Service');
  const configMaps = byKind<IConfigMap>('ConfigMap');
  const deployment = (name: string) =>
    byKind<IDeployment>('Deployment').find((object) => object.metadata.name === name);

  // Every object in one namespace, which the nginx upstream's full name carries.
  const namespaces = new Set(
    objects.filter((object) => object.kind !== 'Namespace').map((o) => o.metadata.namespace),
  );
  if (namespaces.size !== 1 || namespaces.has(undefined)) {
    problem('manifests', `expected one namespace, found ${[...namespaces].join(', ')}`);
  }
  const namespace = [...namespaces][0] ?? '';

  // Services: each selects some workload's pods, on ports those pods have.
  for (const service of services) {
    const selector = service.spec?.selector ?? {};
    const selected = workloads.filter((workload) => matches(selector, podLabelsOf(workload)));
    if (selected.length === 0) problem(service, 'its selector matches no pod template');
    for (const port of service.spec?.ports ?? []) {
      const target = port.targetPort ?? port.port;
      for (const workload of selected) {
        const found = containerPort(containersOf(workload), target);
        if (!found) problem(service, `targetPort ${target} is no port of ${nameOf(workload)}`);
        else if ((found.protocol ?? 'TCP') !== (port.protocol ?? 'TCP')) {
          problem(service, `port ${target} is ${found.protocol} on ${nameOf(workload)}`);
        }
      }
    }
  }

  // Workloads: pinned images, a locked-down container, probes on ports that exist, config that
  // exists, env variables with one value each.
  const redisImage = composeRedisImage();
  for (const workload of workloads) {
    const pod = podSpecOf(workload);
    const containers = containersOf(workload);
    if (
      !matches(workload.spec?.selector?.matchLabels ?? {}, podLabelsOf(workload)) &&
      workload.kind !== 'Job'
    ) {
      problem(workload, 'its selector does not match its pod template');
    }
    if (pod?.securityContext?.seccompProfile?.type !== 'RuntimeDefault') {
      problem(workload, 'the pod has no seccomp profile RuntimeDefault');
    }
    for (const container of containers) {
      const where = `${nameOf(workload)} container ${container.name}`;
      const image = container.image ?? '';
      const tag = /^[^@]+:([^:/@]+)$/.exec(image)?.[1];
      if (!image.includes('@sha256:') && (tag === undefined || tag === 'latest')) {
        problem(where, `image ${image} is not pinned to a tag or digest`);
      }
      if (image.startsWith('redis:') && image !== redisImage) {
        problem(where, `runs ${image}, compose runs ${redisImage}`);
      }
      const security = container.securityContext;
      if (security?.runAsNonRoot !== true && pod?.securityContext?.runAsNonRoot !== true) {
        problem(where, 'may run as root (runAsNonRoot is not true)');
      }
      if ((security?.runAsUser ?? pod?.securityContext?.runAsUser) === 0) {
        problem(where, 'runs as uid 0');
      }
      if (security?.readOnlyRootFilesystem !== true) problem(where, 'has a writable root');
      if (security?.allowPrivilegeEscalation !== false) {
        problem(where, 'allows privilege escalation');
      }
      if (!security?.capabilities?.drop?.includes('ALL')) problem(where, 'keeps capabilities');
      if (security?.privileged === true) problem(where, 'is privileged');
      for (const [kind, probe] of [
        ['startup', container.startupProbe],
        ['readiness', container.readinessProbe],
        ['liveness', container.livenessProbe],
      ] as const) {
        const port = probePort(probe);
        if (port !== undefined && !containerPort([container], port)) {
          problem(where, `its ${kind} probe targets port ${port}, which it does not have`);
        }
      }
      for (const variable of container.env ?? []) {
        if ((variable.value === undefined) === (variable.valueFrom === undefined)) {
          problem(where, `env ${variable.name} needs exactly one of value and valueFrom`);
        }
      }
      for (const source of container.envFrom ?? []) {
        const name = source.configMapRef?.name;
        if (name && !configMaps.some((map) => map.metadata.name === name)) {
          problem(where, `envFrom names ConfigMap ${name}, which is not rendered`);
        }
      }
      if (!container.resources?.requests?.cpu || !container.resources.requests.memory) {
        problem(where, 'has no cpu and memory requests');
      }
      if (!container.resources?.limits?.memory) problem(where, 'has no memory limit');
    }
    for (const volume of pod?.volumes ?? []) {
      const name = volume.configMap?.name;
      if (name && !configMaps.some((map) => map.metadata.name === name)) {
        problem(workload, `volume ${volume.name} names ConfigMap ${name}, which is not rendered`);
      }
    }
  }

  // The api: probes on the health paths, the shutdown order's timing, rollouts without a gap.
  const api = deployment('api');
  const apiContainer = api?.spec?.template.spec?.containers.find((c) => c.name === 'api');
  if (!api || !apiContainer) {
    problem('Deployment/api', 'is missing, or has no container api');
  } else {
    const port = envValue(apiContainer, 'PORT')?.value;
    const http = containerPort([apiContainer], 'http');
    if (!http || String(http.containerPort) !== port) {
      problem(api, `container port http (${http?.containerPort}) is not PORT (${port})`);
    }
    const paths = {
      startup: [apiContainer.startupProbe, ApiPath.healthLive],
      readiness: [apiContainer.readinessProbe, ApiPath.healthReady],
      liveness: [apiContainer.livenessProbe, ApiPath.healthLive],
    } as const;
    for (const [kind, [probe, path]] of Object.entries(paths)) {
      if (probe?.httpGet?.path !== path) {
        problem(api, `its ${kind} probe asks for ${probe?.httpGet?.path}, not ${path}`);
      }
    }
    const preStop = apiContainer.lifecycle?.preStop;
    const sleep =
      preStop?.sleep?.seconds ??
      Number(/^sleep (\d+)$/.exec(preStop?.exec?.command?.join(' ') ?? '')?.[1] ?? 0);
    if (sleep < 5) problem(api, `preStop sleeps ${sleep} s: nginx may still pick it after SIGTERM`);
    const grace = api.spec?.template.spec?.terminationGracePeriodSeconds ?? 30;
    if (grace < sleep + API_DRAIN_SECONDS + GRACE_MARGIN_SECONDS) {
      problem(
        api,
        `terminationGracePeriodSeconds ${grace} < preStop ${sleep} + drain ${API_DRAIN_SECONDS} + margin ${GRACE_MARGIN_SECONDS}`,
      );
    }
    const rolling = api.spec?.strategy?.rollingUpdate;
    if (api.spec?.strategy?.type !== 'RollingUpdate' || rolling?.maxUnavailable !== 0) {
      problem(api, 'a rollout may take a replica away before its successor is ready');
    }
    if (api.spec?.replicas !== undefined) {
      problem(api, 'sets replicas, which every apply would reset under the autoscaler');
    }
    const known = apiEnvironmentNames();
    for (const variable of apiContainer.env ?? []) {
      if (!known.has(variable.name))
        problem(api, `sets ${variable.name}, which the api never reads`);
    }
    for (const source of apiContainer.envFrom ?? []) {
      const map = configMaps.find((m) => m.metadata.name === source.configMapRef?.name);
      for (const key of Object.keys(map?.data ?? {})) {
        if (!known.has(key)) problem(map ?? api, `holds ${key}, which the api never reads`);
      }
      const trustProxy = map?.data?.TRUST_PROXY;
      if (trustProxy !== undefined && !trustProxy.split(',').every(isCidr)) {
        problem(map ?? api, `TRUST_PROXY ${trustProxy} is not a list of addresses or CIDRs`);
      }
    }
    const secret = envValue(apiContainer, 'JWT_SECRET');
    if (secret && !secret.valueFrom?.secretKeyRef) {
      problem(api, 'JWT_SECRET is written in the manifest instead of read from a Secret');
    }
    // Redis: what each rendering runs it on.
    const redisUrl = envValue(apiContainer, 'REDIS_URL');
    const clusterNodes = envValue(apiContainer, 'REDIS_CLUSTER_NODES');
    const statefulSets = byKind<IStatefulSet>('StatefulSet');
    if (redis === 'single') {
      const url = /^redis:\/\/([^:/]+):(\d+)$/.exec(redisUrl?.value ?? '');
      const service = services.find((s) => s.metadata.name === url?.[1]);
      const port = service?.spec?.ports?.find((p) => String(p.port) === url?.[2]);
      if (!url || !service || !port) {
        problem(api, `REDIS_URL ${redisUrl?.value} names no rendered Service and port`);
      }
    } else if (redis === 'cluster') {
      const set = statefulSets.find((s) => s.metadata.name === 'redis-cluster');
      const seeds = (clusterNodes?.value ?? '').split(',');
      const governing = services.find((s) => s.metadata.name === set?.spec?.serviceName);
      if (redisUrl) problem(api, 'sets REDIS_URL beside REDIS_CLUSTER_NODES');
      if (!set || !governing || governing.spec?.clusterIP !== 'None') {
        problem('StatefulSet/redis-cluster', 'is missing, or governed by no headless Service');
      }
      const pods = Array.from(
        { length: set?.spec?.replicas ?? 0 },
        (_, i) => `${set?.metadata.name}-${i}.${set?.spec?.serviceName}:6379`,
      );
      if (seeds.join(',') !== pods.join(',')) {
        problem(
          api,
          `REDIS_CLUSTER_NODES ${clusterNodes?.value} is not every node (${pods.join(',')})`,
        );
      }
    } else {
      if (!redisUrl?.valueFrom?.secretKeyRef) problem(api, 'REDIS_URL does not come from a Secret');
      if (statefulSets.length > 0) problem('manifests', 'an external Redis, but Redis runs here');
    }
    for (const set of statefulSets) {
      const mounts = containersOf(set).flatMap((c) => c.volumeMounts ?? []);
      const data = mounts.find((mount) => mount.mountPath === '/data');
      if (!data || !set.spec?.volumeClaimTemplates?.some((t) => t.metadata?.name === data.name)) {
        problem(set, '/data is not on a volumeClaimTemplate');
      }
      const governing = services.find((s) => s.metadata.name === set.spec?.serviceName);
      if (governing?.spec?.clusterIP !== 'None') problem(set, 'has no headless governing Service');
    }
    const redisConfig = configMaps.find((map) => map.metadata.name.startsWith('redis-config'));
    if (
      redis !== 'external' &&
      !/^appendonly yes$/m.test(redisConfig?.data?.['redis.conf'] ?? '')
    ) {
      problem('ConfigMap/redis-config', 'has no redis.conf with appendonly yes');
    }
  }

  // Disruption budgets and the autoscaler point at what exists.
  for (const budget of byKind<IPodDisruptionBudget>('PodDisruptionBudget')) {
    const selector = budget.spec?.selector?.matchLabels ?? {};
    const selected = workloads.filter((workload) => matches(selector, podLabelsOf(workload)));
    if (selected.length !== 1) problem(budget, `selects ${selected.length} workloads, not one`);
  }
  const autoscalers = byKind<IHorizontalPodAutoscaler>('HorizontalPodAutoscaler');
  if (autoscalers.length === 0) problem('manifests', 'no HorizontalPodAutoscaler');
  for (const autoscaler of autoscalers) {
    const target = autoscaler.spec?.scaleTargetRef;
    if (
      target?.apiVersion !== 'apps/v1' ||
      target.kind !== 'Deployment' ||
      !deployment(target.name)
    ) {
      problem(autoscaler, `targets ${target?.kind}/${target?.name}, which is not rendered`);
    }
    if ((autoscaler.spec?.minReplicas ?? 1) < 2) problem(autoscaler, 'may leave one replica');
    const down = autoscaler.spec?.behavior?.scaleDown;
    if ((down?.stabilizationWindowSeconds ?? 300) < 300) {
      problem(autoscaler, 'scales down within 5 minutes of a peak');
    }
    const policies = down?.policies ?? [];
    if (policies.length === 0 || policies.some((p) => p.type !== 'Pods' || p.value > 1)) {
      problem(autoscaler, 'may remove more than one replica at a time');
    }
  }

  // nginx: its config points at the api's headless Service, listens where the pod says, and
  // outlasts the server's pings.
  const nginx = deployment('nginx');
  const nginxContainer = nginx?.spec?.template.spec?.containers.find((c) => c.name === 'nginx');
  const configFlag = nginxContainer?.command?.indexOf('-c') ?? -1;
  const configPath = configFlag >= 0 ? nginxContainer?.command?.[configFlag + 1] : undefined;
  const mount = nginxContainer?.volumeMounts?.find(
    (m) => configPath !== undefined && configPath.startsWith(`${m.mountPath}/`),
  );
  const configVolume = nginx?.spec?.template.spec?.volumes?.find((v) => v.name === mount?.name);
  const nginxConfigMap = configMaps.find((m) => m.metadata.name === configVolume?.configMap?.name);
  const config =
    nginxConfigMap?.data?.[configPath?.slice((mount?.mountPath.length ?? 0) + 1) ?? ''];
  if (!nginx || !nginxContainer || config === undefined) {
    problem('Deployment/nginx', 'is missing, or runs no config from a rendered ConfigMap');
  } else {
    const facts = nginxFacts(config);
    const [host = '', port = ''] = facts.upstream ?? [];
    const [serviceName, serviceNamespace] = host.split('.');
    const service = services.find((s) => s.metadata.name === serviceName);
    if (serviceNamespace !== namespace || !host.endsWith('.svc.cluster.local')) {
      problem(
        nginxConfigMap ?? nginx,
        `upstream ${host} is not a Service of namespace ${namespace}`,
      );
    }
    if (!service || service.spec?.clusterIP !== 'None') {
      problem(nginxConfigMap ?? nginx, `upstream ${host} is no headless Service`);
    } else if (!service.spec.ports?.some((p) => String(p.port) === port)) {
      problem(nginxConfigMap ?? nginx, `upstream port ${port} is not a port of ${nameOf(service)}`);
    } else if (!api || !matches(service.spec.selector ?? {}, podLabelsOf(api))) {
      problem(nginxConfigMap ?? nginx, `upstream ${host} does not select the api pods`);
    }
    if (!facts.resolver)
      problem(nginxConfigMap ?? nginx, 'no resolver: nginx would never re-resolve');
    if (!containerPort([nginxContainer], facts.listen)) {
      problem(nginx, `nginx listens on ${facts.listen}, which is no container port`);
    }
    for (const [name, value] of [
      ['proxy_read_timeout', facts.readTimeout],
      ['proxy_send_timeout', facts.sendTimeout],
    ] as const) {
      if (value === undefined || value * 1000 <= PING_INTERVAL_MS) {
        problem(nginxConfigMap ?? nginx, `${name} ${value} s does not outlast the 25 s ping`);
      }
    }
  }

  // An Ingress: to a Service port that exists, with timeouts past the ping interval.
  for (const ingress of byKind<IIngress>('Ingress')) {
    for (const path of (ingress.spec?.rules ?? []).flatMap((rule) => rule.http?.paths ?? [])) {
      const backend = path.backend.service;
      const service = services.find((s) => s.metadata.name === backend?.name);
      const port = service?.spec?.ports?.find(
        (p) => p.name === backend?.port?.name || p.port === backend?.port?.number,
      );
      if (!port)
        problem(ingress, `routes to ${backend?.name}:${backend?.port?.name}, not rendered`);
    }
    for (const name of ['proxy-read-timeout', 'proxy-send-timeout']) {
      const value = Number(ingress.metadata.annotations?.[`nginx.ingress.kubernetes.io/${name}`]);
      if (!(value * 1000 > PING_INTERVAL_MS)) {
        problem(ingress, `${name} does not outlast the 25 s ping`);
      }
    }
  }
  return problems;
}

function isCidr(item: string): boolean {
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
