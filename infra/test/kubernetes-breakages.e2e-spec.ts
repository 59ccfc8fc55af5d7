/**
 * Each rule of the manifest checks, broken once in a copy of a rendering: the check must name it.
 */
import { type IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { type IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { type IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { type IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { type IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { type IService } from 'kubernetes-models/v1/Service';
import { type IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import {
  container,
  copy,
  find,
  renderTargets,
  TARGETS,
  type KubeObject,
  manifestProblems,
} from './support/kubernetes';

function nginxConfig(objects: KubeObject[], edit: (config: string) => string): void {
  const data = find<IConfigMap>(objects, 'ConfigMap', 'nginx-config').data ?? {};
  data['nginx.conf'] = edit(data['nginx.conf'] ?? '');
}

const env = (objects: KubeObject[], name: string) => {
  const variable = container(objects, 'Deployment', 'api').env?.find((v) => v.name === name);
  if (!variable) throw new Error(`the api has no ${name}`);
  return variable;
};

describe('Kubernetes manifest checks', () => {
  let rendered: Record<string, KubeObject[]> = {};

  beforeAll(() => {
    rendered = renderTargets();
  });

  /** [target, what is broken, how, what the problem says] */
  const BREAKAGES: [string, string, (objects: KubeObject[]) => void, RegExp][] = [
    [
      'base',
      'a Service targetPort',
      (o) => {
        const port = find<IService>(o, 'Service', 'api').spec?.ports?.[0];
        if (port) port.targetPort = 'web';
      },
      /Service\/api: targetPort web is no port of Deployment\/api/,
    ],
    [
      'base',
      'a Service selector',
      (o) => {
        const spec = find<IService>(o, 'Service', 'nginx').spec;
        if (spec) spec.selector = { 'app.kubernetes.io/component': 'ngnix' };
      },
      /Service\/nginx: its selector matches no pod template/,
    ],
    [
      'base',
      'the readiness path',
      (o) => {
        const probe = container(o, 'Deployment', 'api').readinessProbe?.httpGet;
        if (probe) probe.path = '/api/health/live';
      },
      /its readiness probe asks for \/api\/health\/live, not \/api\/health\/ready/,
    ],
    [
      'base',
      'a probe port',
      (o) => {
        const probe = container(o, 'Deployment', 'api').livenessProbe?.httpGet;
        if (probe) probe.port = 'metrics';
      },
      /its liveness probe targets port metrics/,
    ],
    [
      'base',
      'the api container port against PORT',
      (o) => {
        const port = container(o, 'Deployment', 'api').ports?.[0];
        if (port) port.containerPort = 3001;
      },
      /container port http \(3001\) is not PORT \(3000\)/,
    ],
    [
      'base',
      'the grace period',
      (o) => {
        const spec = find<IDeployment>(o, 'Deployment', 'api').spec?.template.spec;
        if (spec) spec.terminationGracePeriodSeconds = 15;
      },
      /terminationGracePeriodSeconds 15 < preStop 10 \+ drain 8 \+ margin 5/,
    ],
    [
      'base',
      'the preStop sleep',
      (o) => {
        delete container(o, 'Deployment', 'api').lifecycle;
      },
      /preStop sleeps 0 s/,
    ],
    [
      'base',
      'maxUnavailable',
      (o) => {
        const rolling = find<IDeployment>(o, 'Deployment', 'api').spec?.strategy?.rollingUpdate;
        if (rolling) rolling.maxUnavailable = 1;
      },
      /a rollout may take a replica away/,
    ],
    [
      'base',
      'replicas beside the autoscaler',
      (o) => {
        const spec = find<IDeployment>(o, 'Deployment', 'api').spec;
        if (spec) spec.replicas = 3;
      },
      /sets replicas/,
    ],
    [
      'base',
      'a disruption budget selector',
      (o) => {
        const spec = find<IPodDisruptionBudget>(o, 'PodDisruptionBudget', 'api').spec;
        if (spec) spec.selector = { matchLabels: { 'app.kubernetes.io/component': 'apii' } };
      },
      /PodDisruptionBudget\/api: selects 0 workloads/,
    ],
    [
      'base',
      'the autoscaler target',
      (o) => {
        const spec = find<IHorizontalPodAutoscaler>(o, 'HorizontalPodAutoscaler', 'api').spec;
        if (spec) spec.scaleTargetRef.name = 'apis';
      },
      /targets Deployment\/apis, which is not rendered/,
    ],
    [
      'base',
      'the scale-down pace',
      (o) => {
        const down = find<IHorizontalPodAutoscaler>(o, 'HorizontalPodAutoscaler', 'api').spec
          ?.behavior?.scaleDown;
        if (down?.policies?.[0]) down.policies[0].value = 3;
        if (down) down.stabilizationWindowSeconds = 60;
      },
      /more than one replica at a time/,
    ],
    [
      'base',
      'a pinned tag',
      (o) => {
        container(o, 'Deployment', 'api').image = 'taco-chat-api:latest';
        container(o, 'Deployment', 'nginx').image = 'taco-chat-nginx';
      },
      /image taco-chat-api:latest is not pinned[\s\S]*image taco-chat-nginx is not pinned/,
    ],
    [
      'base',
      'the Redis image compose runs',
      (o) => {
        container(o, 'StatefulSet', 'redis').image = 'redis:7.2.5-alpine';
      },
      /runs redis:7.2.5-alpine, compose runs redis:/,
    ],
    [
      'base',
      'a read-only root',
      (o) => {
        const security = container(o, 'StatefulSet', 'redis').securityContext;
        if (security) security.readOnlyRootFilesystem = false;
      },
      /StatefulSet\/redis container redis: has a writable root/,
    ],
    [
      'base',
      'non-root',
      (o) => {
        delete container(o, 'Deployment', 'api').securityContext?.runAsNonRoot;
        delete find<IDeployment>(o, 'Deployment', 'api').spec?.template.spec?.securityContext
          ?.runAsNonRoot;
      },
      /container api: may run as root/,
    ],
    [
      'base',
      'dropped capabilities',
      (o) => {
        const security = container(o, 'Deployment', 'nginx').securityContext;
        if (security) security.capabilities = { drop: [] };
      },
      /container nginx: keeps capabilities/,
    ],
    [
      'base',
      'seccomp',
      (o) => {
        delete find<IDeployment>(o, 'Deployment', 'api').spec?.template.spec?.securityContext
          ?.seccompProfile;
      },
      /Deployment\/api: the pod has no seccomp profile RuntimeDefault/,
    ],
    [
      'base',
      'the memory limit',
      (o) => {
        delete container(o, 'Deployment', 'api').resources?.limits?.memory;
      },
      /container api: has no memory limit/,
    ],
    [
      'base',
      'an env variable with two values',
      (o) => {
        env(o, 'REDIS_URL').valueFrom = { secretKeyRef: { name: 'taco-redis', key: 'url' } };
      },
      /env REDIS_URL needs exactly one of value and valueFrom/,
    ],
    [
      'base',
      'a written-out JWT secret',
      (o) => {
        const secret = env(o, 'JWT_SECRET');
        delete secret.valueFrom;
        secret.value = 'a-secret-of-at-least-thirty-two-bytes!';
      },
      /JWT_SECRET is written in the manifest/,
    ],
    [
      'base',
      'a setting the api does not read',
      (o) => {
        const data = find<IConfigMap>(o, 'ConfigMap', 'api-config').data;
        if (data) data.HISTORY_LIMIT = '5';
      },
      /holds HISTORY_LIMIT, which the api never reads/,
    ],
    [
      'base',
      'TRUST_PROXY as a word',
      (o) => {
        const data = find<IConfigMap>(o, 'ConfigMap', 'api-config').data;
        if (data) data.TRUST_PROXY = 'POD_CIDR';
      },
      /TRUST_PROXY POD_CIDR is not a list of addresses or CIDRs/,
    ],
    [
      'base',
      'REDIS_URL to no Service',
      (o) => {
        env(o, 'REDIS_URL').value = 'redis://redis-master:6379';
      },
      /REDIS_URL redis:\/\/redis-master:6379 names no rendered Service/,
    ],
    [
      'base',
      'the Redis volume',
      (o) => {
        const template = find<IStatefulSet>(o, 'StatefulSet', 'redis').spec
          ?.volumeClaimTemplates?.[0];
        if (template?.metadata) template.metadata.name = 'storage';
      },
      /StatefulSet\/redis: \/data is not on a volumeClaimTemplate/,
    ],
    [
      'base',
      'AOF',
      (o) => {
        const data = find<IConfigMap>(o, 'ConfigMap', 'redis-config').data ?? {};
        data['redis.conf'] = (data['redis.conf'] ?? '').replace('appendonly yes', 'appendonly no');
      },
      /redis-config: has no redis.conf with appendonly yes/,
    ],
    [
      'base',
      'the nginx upstream Service',
      (o) => nginxConfig(o, (config) => config.replace('server api.', 'server nginx.')),
      /upstream nginx.taco-chat.svc.cluster.local is no headless Service/,
    ],
    [
      'base',
      'the nginx upstream port',
      (o) =>
        nginxConfig(o, (config) => config.replace('.cluster.local:3000', '.cluster.local:3001')),
      /upstream port 3001 is not a port of Service\/api/,
    ],
    [
      'base',
      'the nginx upstream pods',
      (o) =>
        nginxConfig(o, (config) =>
          config.replace(/server api\.(\S+):3000/, 'server redis.$1:6379'),
        ),
      /upstream redis.taco-chat.svc.cluster.local does not select the api pods/,
    ],
    [
      'base',
      'the nginx read timeout',
      (o) =>
        nginxConfig(o, (config) =>
          config.replace('proxy_read_timeout 75s', 'proxy_read_timeout 20s'),
        ),
      /proxy_read_timeout 20 s does not outlast the 25 s ping/,
    ],
    [
      'base',
      'the nginx listen port',
      (o) => {
        const port = container(o, 'Deployment', 'nginx').ports?.[0];
        if (port) port.containerPort = 80;
      },
      /nginx listens on 8080, which is no container port/,
    ],
    [
      'overlays/redis-cluster',
      'a seed node',
      (o) => {
        const nodes = env(o, 'REDIS_CLUSTER_NODES');
        nodes.value = nodes.value?.split(',').slice(0, 3).join(',');
      },
      /REDIS_CLUSTER_NODES .* is not every node/,
    ],
    [
      'overlays/external-redis',
      'REDIS_URL from a Secret',
      (o) => {
        const url = env(o, 'REDIS_URL');
        delete url.valueFrom;
        url.value = 'redis://redis.example.com:6379';
      },
      /REDIS_URL does not come from a Secret/,
    ],
    [
      'examples/ingress',
      'the Ingress timeouts',
      (o) => {
        const annotations = find<IIngress>(o, 'Ingress', 'taco-chat').metadata.annotations ?? {};
        annotations['nginx.ingress.kubernetes.io/proxy-read-timeout'] = '20';
      },
      /Ingress\/taco-chat: proxy-read-timeout does not outlast the 25 s ping/,
    ],
    [
      'examples/ingress',
      'the Ingress backend',
      (o) => {
        const backend = find<IIngress>(o, 'Ingress', 'taco-chat').spec?.rules?.[0]?.http?.paths[0]
          ?.backend.service;
        if (backend) backend.port = { name: 'web' };
      },
      /routes to nginx:web, not rendered/,
    ],
  ];

  it.each(BREAKAGES)('in %s, names a broken rule: %s', (target, _what, breakIt, expected) => {
    const objects = copy(rendered[target] ?? []);
    breakIt(objects);
    expect(manifestProblems(objects, TARGETS[target] ?? 'single').join('\n')).toMatch(expected);
  });
});
