/**
 * A strict parser of the Prometheus text exposition format (version 0.0.4), for tests: it throws
 * on anything a Prometheus server would refuse or misread, so a test that parses a scrape proves
 * the scrape is well formed.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string | undefined;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const SUFFIXES: Record<string, string[]> = {
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

function fail(line: number, why: string, text: string): never {
  throw new Error(`Prometheus text, line ${line}: ${why}: ${JSON.stringify(text)}`);
}

/**
 * A sample value, or `undefined` when the text is not one. Prometheus reads values with Go's
 * `ParseFloat`, which takes NaN in any case: prom-client writes `Nan`, as the text format's
 * documentation once spelled it.
 */
function parseValue(text: string): number | undefined {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text.toLowerCase() === 'nan') return NaN;
  return /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) ? Number(text) : undefined;
}

/** Reads `{a="x",b="y"}` from `text` at `start`; returns the labels and where they end. */
function parseLabels(text: string, start: number, line: number): [Record<string, string>, number] {
  const labels: Record<string, string> = {};
  let i = start + 1;
  for (;;) {
    if (text[i] === '}') return [labels, i + 1];
    const eq = text.indexOf('=', i);
    if (eq === -1) fail(line, 'a label without a value', text);
    const name = text.slice(i, eq);
    if (!LABEL_NAME.test(name)) fail(line, `a bad label name ${name}`, text);
    if (name in labels) fail(line, `label ${name} twice`, text);
    if (text[eq + 1] !== '"') fail(line, 'a label value not in quotes', text);
    let value = '';
    let j = eq + 2;
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] === '\\') {
        const next = text[++j];
        if (next === 'n') value += '\n';
        else if (next === '\\' || next === '"') value += next;
        else fail(line, 'a bad escape in a label value', text);
      } else {
        value += text[j];
      }
    }
    if (j >= text.length) fail(line, 'an unterminated label value', text);
    labels[name] = value;
    i = j + 1;
    if (text[i] === ',') i++;
    else if (text[i] !== '}') fail(line, 'labels not separated by commas', text);
  }
}

function checkHistogram(family: MetricFamily): void {
  const series = new Map<string, { buckets: [number, number][]; count?: number }>();
  for (const sample of family.samples) {
    const { le, ...rest } = sample.labels;
    const key = JSON.stringify(rest);
    const entry = series.get(key) ?? { buckets: [] };
    series.set(key, entry);
    if (sample.name.endsWith('_bucket')) {
      if (le === undefined) throw new Error(`${family.name}: a bucket without le`);
      entry.buckets.push([le === '+Inf' ? Infinity : Number(le), sample.value]);
    } else if (sample.name.endsWith('_count')) {
      entry.count = sample.value;
    }
  }
  for (const [key, { buckets, count }] of series) {
    const last = buckets.at(-1);
    if (!last || last[0] !== Infinity) throw new Error(`${family.name}${key}: no +Inf bucket`);
    for (let i = 1; i < buckets.length; i++) {
      const [bound, value] = buckets[i]!;
      const [previousBound, previousValue] = buckets[i - 1]!;
      if (bound <= previousBound || value < previousValue) {
        throw new Error(`${family.name}${key}: buckets not cumulative in increasing le`);
      }
    }
    if (count !== last[1]) throw new Error(`${family.name}${key}: _count is not the +Inf bucket`);
  }
}

/** Every metric family of a scrape, by name. Throws on anything malformed. */
export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  if (!text.endsWith('\n')) throw new Error('Prometheus text must end with a newline');
  const families = new Map<string, MetricFamily>();
  const help = new Map<string, string>();
  const seen = new Set<string>();
  let current: MetricFamily | undefined;
  text
    .slice(0, -1)
    .split('\n')
    .forEach((raw, index) => {
      const line = index + 1;
      if (raw.trim() === '') return;
      if (raw.startsWith('#')) {
        const match = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(raw);
        if (!match) return; // another comment
        const [, keyword, name = '', rest = ''] = match;
        if (!NAME.test(name)) fail(line, 'a bad metric name', raw);
        if (keyword === 'HELP') {
          if (help.has(name)) fail(line, 'HELP twice', raw);
          help.set(name, rest);
          return;
        }
        if (!TYPES.has(rest)) fail(line, 'an unknown type', raw);
        if (families.has(name)) fail(line, 'TYPE twice', raw);
        current = { name, type: rest as MetricFamily['type'], help: help.get(name), samples: [] };
        families.set(name, current);
        return;
      }
      const nameEnd = raw.search(/[{ ]/);
      if (nameEnd <= 0) fail(line, 'a sample without a value', raw);
      const name = raw.slice(0, nameEnd);
      if (!NAME.test(name)) fail(line, 'a bad metric name', raw);
      let labels: Record<string, string> = {};
      let rest = nameEnd;
      if (raw[nameEnd] === '{') [labels, rest] = parseLabels(raw, nameEnd, line);
      const fields = raw.slice(rest).trim().split(' ');
      if (raw[rest] !== ' ' || fields.length < 1 || fields.length > 2) {
        fail(line, 'not "name{labels} value [timestamp]"', raw);
      }
      const value = parseValue(fields[0] ?? '');
      if (value === undefined) fail(line, 'a value that is not a number', raw);
      if (fields[1] !== undefined && !/^-?\d+$/.test(fields[1])) fail(line, 'a bad timestamp', raw);
      const family = current;
      const suffixes = family ? (SUFFIXES[family.type] ?? ['']) : [];
      if (!family || !suffixes.some((suffix) => name === `${family.name}${suffix}`)) {
        fail(line, 'a sample outside the family its TYPE line opened', raw);
      }
      const series = `${name}${JSON.stringify(labels)}`;
      if (seen.has(series)) fail(line, 'the same series twice', raw);
      seen.add(series);
      family.samples.push({ name, labels, value });
    });
  for (const family of families.values()) {
    if (family.type === 'histogram') checkHistogram(family);
  }
  return families;
}
