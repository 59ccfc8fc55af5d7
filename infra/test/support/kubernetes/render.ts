/**
 * The manifests as `kubectl kustomize` renders them, and their check against the Kubernetes
 * schema (kubernetes-models), unknown fields included.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Secret } from 'kubernetes-models/v1/Secret';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';
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
