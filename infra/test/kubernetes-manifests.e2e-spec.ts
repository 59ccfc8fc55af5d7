import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type IContainer } from 'kubernetes-models/v1/Container';
import { findExecutable, nginxUser } from '@taco/harness';
import {
  container,
  copy,
  imagesOf,
  KUBERNETES_DIR,
  type KubeObject,
  manifestProblems,
  nameOf,
  renderTargets,
  schemaProblems,
  TARGETS,
  unknownFieldProblems,
} from './support/kubernetes';
import { kubernetesConfigFiles } from '../kubernetes/sync-config';

describe('Kubernetes manifests (infra/kubernetes)', () => {
  let rendered: Record<string, KubeObject[]> = {};

  beforeAll(() => {
    // No kubectl, or one too old: fail here, saying so, rather than skip.
    rendered = renderTargets();
  });

  it('keeps nginx.conf rendered from the template and redis.conf copied from infra/redis', () => {
    for (const [path, content] of Object.entries(kubernetesConfigFiles())) {
      expect([path, readFileSync(path, 'utf8') === content]).toEqual([path, true]);
    }
  });

  it.each(Object.keys(TARGETS))('renders %s with kubectl kustomize', (target) => {
    const kinds = (rendered[target] ?? []).map(nameOf);
    expect(kinds).toEqual(
      expect.arrayContaining([
        'Namespace/taco-chat',
        'Deployment/api',
        'Service/api',
        'PodDisruptionBudget/api',
        'HorizontalPodAutoscaler/api',
        'Deployment/nginx',
        'Service/nginx',
      ]),
    );
    const redis = {
      single: ['StatefulSet/redis', 'Service/redis'],
      cluster: ['StatefulSet/redis-cluster', 'Service/redis-cluster', 'Job/redis-cluster-init'],
      external: [],
    }[TARGETS[target] ?? 'single'];
    expect(kinds).toEqual(expect.arrayContaining(redis));
    expect(kinds.filter((kind) => /StatefulSet/.test(kind))).toHaveLength(redis.length > 0 ? 1 : 0);
  });

  it.each(Object.keys(TARGETS))(
    'renders %s to objects valid by the Kubernetes schemas',
    (target) => {
      expect(schemaProblems(rendered[target] ?? [])).toEqual([]);
    },
  );

  it('finds a schema error: a port that is not a number, a kind with no schema', () => {
    const objects = copy(rendered.base ?? []);
    const port = container(objects, 'Deployment', 'api').ports?.[0];
    if (port) (port as { containerPort: unknown }).containerPort = 'http';
    objects.push({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'stray' } });
    const problems = schemaProblems(objects);
    expect(problems).toEqual([
      expect.stringMatching(/^Deployment\/api: .*containerPort must be integer/),
      'Pod/stray: no schema for v1/Pod',
    ]);
  });

  it('uses no field Kubernetes does not know, and would name one', () => {
    const all = Object.values(rendered).flat();
    const broken = copy(rendered.base ?? []).filter(
      (object) => nameOf(object) === 'Deployment/api',
    );
    const api = container(broken, 'Deployment', 'api') as IContainer & Record<string, unknown>;
    api.readinesProbe = api.readinessProbe;
    delete api.readinessProbe;
    const problems = unknownFieldProblems([...all, ...broken]);
    expect(problems).toEqual([expect.stringMatching(/^Deployment\/api: .*'"?readinesProbe"?'/)]);
  });

  it.each(Object.entries(TARGETS))('keeps every cross-object rule in %s', (target, redis) => {
    expect(manifestProblems(rendered[target] ?? [], redis)).toEqual([]);
  });

  it('pins the api and nginx images to one tag, set in one place (kustomize images)', () => {
    for (const objects of Object.values(rendered)) {
      const ours = imagesOf(objects).filter((image) => image.startsWith('taco-chat-'));
      const tags = new Set(ours.map((image) => image.split(':')[1]));
      expect(ours.map((image) => image.split(':')[0]).sort()).toEqual([
        'taco-chat-api',
        'taco-chat-nginx',
      ]);
      expect(tags.size).toBe(1);
    }
  });

  it('renders an nginx.conf for the pods that nginx -t accepts', () => {
    const nginx = findExecutable('nginx');
    const dir = mkdtempSync(join(tmpdir(), 'taco-kube-nginx-'));
    try {
      for (const sub of ['www', 'tmp']) mkdirSync(join(dir, sub));
      // `server … resolve` is open source from nginx 1.27.3 (the image); an older nginx, as on a
      // Debian host, checks everything else, with loopback standing in for the cluster's names.
      const version = spawnSync(nginx, ['-v'], { encoding: 'utf8' }).stderr;
      const [major = 0, minor = 0, patch = 0] = (/nginx\/(\d+)\.(\d+)\.(\d+)/.exec(version) ?? [])
        .slice(1)
        .map(Number);
      const hasResolve = major * 1e6 + minor * 1e3 + patch >= 1_027_003;
      let config = readFileSync(join(KUBERNETES_DIR, 'base', 'nginx.conf'), 'utf8')
        .replace(/resolver \S+ /, 'resolver 127.0.0.1 ')
        .replace(/server api\.\S+:3000/, 'server 127.0.0.1:3000')
        .replaceAll('/tmp', join(dir, 'tmp'))
        .replaceAll('/usr/share/nginx/html', join(dir, 'www'))
        .replace('/dev/stdout', join(dir, 'access.log'))
        .replaceAll('/dev/stderr', join(dir, 'error.log'))
        .replace('listen 8080;', 'listen 127.0.0.1:8080;');
      if (!hasResolve) config = config.replace(/ resolve;/, ';');
      // No `user` directive: the pods run nginx as the image's unprivileged user.
      expect(config).not.toMatch(/^\s*user /m);
      const user = nginxUser();
      if (user !== undefined) config = `user ${user};\n${config}`;
      writeFileSync(join(dir, 'nginx.conf'), config);
      expect(() =>
        execFileSync(
          nginx,
          ['-t', '-p', dir, '-e', join(dir, 'error.log'), '-c', join(dir, 'nginx.conf')],
          { stdio: 'pipe' },
        ),
      ).not.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
