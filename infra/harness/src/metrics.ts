import { ApiPath } from '@taco/protocol';

/** One counter or gauge of a replica's Prometheus text, summed over its series that carry `labels`. */
export async function metricValue(
  replicaUrl: string,
  name: string,
  labels: Record<string, string> = {},
  timeoutMs = 30_000,
): Promise<number> {
  const response = await fetch(`${replicaUrl}${ApiPath.metrics}`, {
    signal: AbortSignal.timeout(timeoutMs),
  });
  let total = 0;
  for (const line of (await response.text()).split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) {
      continue;
    }
    total += Number(line.slice(line.lastIndexOf(' ') + 1)) || 0;
  }
  return total;
}
