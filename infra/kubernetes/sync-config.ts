import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REDIS_CONF, REPO_ROOT } from '@taco/harness';
import { kubernetesNginxConfig } from '../nginx/render-nginx-config';

export const KUSTOMIZE_BASE = join(__dirname, 'base');

/**
 * The config files the base's configMapGenerator reads, as they must be: nginx.conf rendered from
 * the one template, redis.conf copied from the one Redis config (Kustomize reads no file outside
 * the kustomization's folder). A test checks the committed files against these.
 */
export function kubernetesConfigFiles(): Record<string, string> {
  const header = (source: string) =>
    `# Generated from ${source} by \`npm run kube:config\`: edit that, then run it again.\n`;
  return {
    [join(KUSTOMIZE_BASE, 'nginx.conf')]:
      header('infra/nginx/nginx.conf.template') + kubernetesNginxConfig(),
    [join(KUSTOMIZE_BASE, 'redis.conf')]:
      header('infra/redis/redis.conf') + readFileSync(REDIS_CONF, 'utf8'),
  };
}

/** `npm run kube:config`: writes them. */
function main(): void {
  for (const [path, content] of Object.entries(kubernetesConfigFiles())) {
    writeFileSync(path, content);
    process.stdout.write(`wrote ${path.slice(REPO_ROOT.length + 1)}\n`);
  }
}

if (require.main === module) main();
