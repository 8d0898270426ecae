import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

/** A rendered Kubernetes object, read loosely: the policy walks it, the schemas type-check it. */
export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
  };
} & Record<string, any>;

export const DEPLOY_DIR = join(__dirname, '..', '..', 'deploy');
export const OVERLAYS = ['embedded', 'production', 'production-workers'] as const;
export type Overlay = (typeof OVERLAYS)[number];

/** Optional pieces of deploy/components an installation adds to an overlay. */
export const COMPONENTS = ['monitoring', 'model-server'] as const;
export type Component = (typeof COMPONENTS)[number];

/** What `kubectl apply -k deploy/overlays/<overlay>` would send to the cluster, as JSON objects. */
export function renderOverlay(overlay: Overlay, components: readonly Component[] = []): K8sObject[] {
  if (components.length === 0) return renderDirectory(join(DEPLOY_DIR, 'overlays', overlay));
  // An installation's own overlay: the shipped one plus components, as docs/kubernetes.md writes it.
  const dir = mkdtempSync(join(tmpdir(), 'continuum-overlay-'));
  try {
    const rel = (p: string) => relative(dir, join(DEPLOY_DIR, p));
    writeFileSync(
      join(dir, 'kustomization.yaml'),
      [
        'apiVersion: kustomize.config.k8s.io/v1beta1',
        'kind: Kustomization',
        `resources: [${rel(`overlays/${overlay}`)}]`,
        `components: [${components.map((c) => rel(`components/${c}`)).join(', ')}]`,
        '',
      ].join('\n'),
    );
    return renderDirectory(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `kubectl kustomize <dir>`, as JSON objects. */
export function renderDirectory(dir: string): K8sObject[] {
  const yaml = execFileSync('kubectl', ['kustomize', dir], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  // kubectl turns YAML into JSON offline: removing a label no object has (`--local`, no cluster) changes
  // nothing and prints each object as pretty JSON, one after the other.
  const json = execFileSync('kubectl', ['label', '--local', '-f', '-', '-o', 'json', 'continuum.example/render-'], {
    input: yaml,
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, KUBECONFIG: '/dev/null' },
  });
  const documents = json.trim().split(/\n}\n{/);
  return documents.map(
    (d, i) => JSON.parse(`${i > 0 ? '{' : ''}${d}${i < documents.length - 1 ? '}' : ''}`) as K8sObject,
  );
}

/** The schema failures of each object (none when every object is valid). */
export function schemaFailures(objects: readonly K8sObject[]): { index: number; error: string }[] {
  const out = execFileSync(process.execPath, [join(__dirname, 'validate-objects.mjs')], {
    input: JSON.stringify(objects),
    encoding: 'utf8',
    timeout: 60_000,
  });
  return JSON.parse(out) as { index: number; error: string }[];
}
