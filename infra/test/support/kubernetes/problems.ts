/**
 * What the project needs of a rendering beyond the schema: every cross-object reference holds,
 * and each rule of the shutdown order, the security context and the sizing is kept.
 */
import { ApiPath, PING_INTERVAL_MS } from '@taco/protocol';
import { type IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { type IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { type IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { type IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { type IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { type IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { type IContainer } from 'kubernetes-models/v1/Container';
import { type IService } from 'kubernetes-models/v1/Service';
import {
  API_DRAIN_SECONDS,
  apiEnvironmentNames,
  composeRedisImage,
  containerPort,
  containersOf,
  envValue,
  GRACE_MARGIN_SECONDS,
  isCidr,
  isWorkload,
  matches,
  nginxFacts,
  podLabelsOf,
  podSpecOf,
  probePort,
  type RedisMode,
  type Workload,
} from './objects';
import { type KubeObject, nameOf } from './render';

/** One rendering, indexed for the checks, and where they write what they find. */
interface Rendering {
  objects: readonly KubeObject[];
  problem(object: KubeObject | string, text: string): void;
  byKind<T>(kind: string): (KubeObject & T)[];
  workloads: Workload[];
  services: (KubeObject & IService)[];
  configMaps: (KubeObject & IConfigMap)[];
  deployment(name: string): (KubeObject & IDeployment) | undefined;
}

/** The problems of a rendering, one line each (none: all is well). */
export function manifestProblems(objects: readonly KubeObject[], redis: RedisMode): string[] {
  const problems: string[] = [];
  const byKind = <T>(kind: string) =>
    objects.filter((object) => object.kind === kind) as (KubeObject & T)[];
  const rendering: Rendering = {
    objects,
    problem: (object, text) =>
      problems.push(`${typeof object === 'string' ? object : nameOf(object)}: ${text}`),
    byKind,
    workloads: objects.filter(isWorkload),
    services: byKind<IService>('Service'),
    configMaps: byKind<IConfigMap>('ConfigMap'),
    deployment: (name) =>
      byKind<IDeployment>('Deployment').find((object) => object.metadata.name === name),
  };
  const namespace = checkNamespace(rendering);
  checkServices(rendering);
  for (const workload of rendering.workloads) checkWorkload(rendering, workload);
  checkApi(rendering, redis);
  checkScaling(rendering);
  checkNginx(rendering, namespace);
  checkIngresses(rendering);
  return problems;
}

/** Every object in one namespace, which the nginx upstream's full name carries. */
function checkNamespace({ objects, problem }: Rendering): string {
  const namespaces = new Set(
    objects.filter((object) => object.kind !== 'Namespace').map((o) => o.metadata.namespace),
  );
  if (namespaces.size !== 1 || namespaces.has(undefined)) {
    problem('manifests', `expected one namespace, found ${[...namespaces].join(', ')}`);
  }
  return [...namespaces][0] ?? '';
}

/** Services: each selects some workload's pods, on ports those pods have. */
function checkServices({ services, workloads, problem }: Rendering): void {
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
}

/**
 * Workloads: pinned images, a locked-down container, probes on ports that exist, config that
 * exists, env variables with one value each.
 */
function checkWorkload(rendering: Rendering, workload: Workload): void {
  const { configMaps, problem } = rendering;
  const pod = podSpecOf(workload);
  if (
    !matches(workload.spec?.selector?.matchLabels ?? {}, podLabelsOf(workload)) &&
    workload.kind !== 'Job'
  ) {
    problem(workload, 'its selector does not match its pod template');
  }
  if (pod?.securityContext?.seccompProfile?.type !== 'RuntimeDefault') {
    problem(workload, 'the pod has no seccomp profile RuntimeDefault');
  }
  for (const container of containersOf(workload)) checkContainer(rendering, workload, container);
  for (const volume of pod?.volumes ?? []) {
    const name = volume.configMap?.name;
    if (name && !configMaps.some((map) => map.metadata.name === name)) {
      problem(workload, `volume ${volume.name} names ConfigMap ${name}, which is not rendered`);
    }
  }
}

function checkContainer(
  { configMaps, problem }: Rendering,
  workload: Workload,
  container: IContainer,
): void {
  const pod = podSpecOf(workload);
  const redisImage = composeRedisImage();
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

/** The api: probes on the health paths, the shutdown order's timing, rollouts without a gap. */
function checkApi(rendering: Rendering, redis: RedisMode): void {
  const { configMaps, problem, deployment } = rendering;
  const api = deployment('api');
  const apiContainer = api?.spec?.template.spec?.containers.find((c) => c.name === 'api');
  if (!api || !apiContainer) {
    problem('Deployment/api', 'is missing, or has no container api');
    return;
  }
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
    if (!known.has(variable.name)) problem(api, `sets ${variable.name}, which the api never reads`);
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
  checkRedis(rendering, api, apiContainer, redis);
}

/** Redis: what each rendering runs it on. */
function checkRedis(
  { byKind, configMaps, services, problem }: Rendering,
  api: KubeObject,
  apiContainer: IContainer,
  redis: RedisMode,
): void {
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
  if (redis !== 'external' && !/^appendonly yes$/m.test(redisConfig?.data?.['redis.conf'] ?? '')) {
    problem('ConfigMap/redis-config', 'has no redis.conf with appendonly yes');
  }
}

/** Disruption budgets and the autoscaler point at what exists. */
function checkScaling({ byKind, workloads, deployment, problem }: Rendering): void {
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
}

/**
 * nginx: its config points at the api's headless Service, listens where the pod says, and
 * outlasts the server's pings.
 */
function checkNginx({ configMaps, services, deployment, problem }: Rendering, namespace: string) {
  const api = deployment('api');
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
    return;
  }
  const facts = nginxFacts(config);
  const [host = '', port = ''] = facts.upstream ?? [];
  const [serviceName, serviceNamespace] = host.split('.');
  const service = services.find((s) => s.metadata.name === serviceName);
  if (serviceNamespace !== namespace || !host.endsWith('.svc.cluster.local')) {
    problem(nginxConfigMap ?? nginx, `upstream ${host} is not a Service of namespace ${namespace}`);
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

/** An Ingress: to a Service port that exists, with timeouts past the ping interval. */
function checkIngresses({ byKind, services, problem }: Rendering): void {
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
}
