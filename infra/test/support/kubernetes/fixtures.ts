/** Renderings of every kustomization, and what tests use to break a copy of one. */
import { join } from 'node:path';
import { type IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { type IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { type IContainer } from 'kubernetes-models/v1/Container';
import { type RedisMode } from './objects';
import { KUBERNETES_DIR, type KubeObject, kustomizeVersion, renderKustomization } from './render';

/** Every kustomization in infra/kubernetes, and the Redis it runs the api on. */
export const TARGETS: Record<string, RedisMode> = {
  base: 'single',
  'overlays/redis-cluster': 'cluster',
  'overlays/external-redis': 'external',
  'examples/ingress': 'single',
};

/** Every target rendered; throws, saying why, when kubectl is missing or too old (never skips). */
export function renderTargets(): Record<string, KubeObject[]> {
  kustomizeVersion();
  return Object.fromEntries(
    Object.keys(TARGETS).map((target) => [
      target,
      renderKustomization(join(KUBERNETES_DIR, target)),
    ]),
  );
}

export const copy = (objects: readonly KubeObject[]) => structuredClone(objects) as KubeObject[];

export function find<T>(objects: KubeObject[], kind: string, name: string): KubeObject & T {
  const found = objects.find(
    (object) =>
      object.kind === kind &&
      (object.metadata.name === name || object.metadata.name.startsWith(`${name}-`)),
  );
  if (!found) throw new Error(`${kind}/${name} is not rendered`);
  return found as KubeObject & T;
}

export function container(objects: KubeObject[], kind: string, name: string): IContainer {
  const workload = find<IDeployment | IStatefulSet>(objects, kind, name);
  const first = workload.spec?.template.spec?.containers[0];
  if (!first) throw new Error(`${kind}/${name} has no container`);
  return first;
}
