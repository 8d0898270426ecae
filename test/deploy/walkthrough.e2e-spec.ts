import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterExtensions, policyViolations } from './manifest-policy';
import { DEPLOY_DIR, K8sObject, renderDirectory, schemaFailures } from './manifests';

/**
 * docs/kubernetes.md's walkthrough, run as pasted from the repository root (a copy of deploy/ in a
 * temporary root): `kubectl apply -k <dir>` becomes `kubectl kustomize <dir>` (no cluster here), every
 * `kubectl create` runs with `--dry-run=client`, the rest of kubectl and docker are recorded, not run.
 */
const DOC = join(__dirname, '..', '..', 'docs', 'kubernetes.md');

function walkthrough(): string {
  const text = readFileSync(DOC, 'utf8');
  const block = /<!-- walkthrough:start -->\s*```sh\n([\s\S]*?)```\s*<!-- walkthrough:end -->/.exec(text);
  if (!block) throw new Error('no walkthrough block in docs/kubernetes.md');
  return block[1];
}

const SHIMS = `
set -euo pipefail
kubectl() {
  local args=("$@")
  if [[ "\${args[0]}" == -n ]]; then args=("\${args[@]:2}"); fi
  case "\${args[0]}" in
    kustomize) command kubectl "$@" ;;
    apply)
      [[ "\${args[1]}" == -k ]] || { echo "walkthrough: apply without -k" >&2; return 2; }
      command kubectl kustomize "\${args[2]}" > "$RENDERED"; echo "apply -k \${args[2]}" >> "$CALLS" ;;
    create) command kubectl "$@" --dry-run=client -o json >> "$CREATED"; echo "\${args[*]:0:3}" >> "$CALLS" ;;
    *) echo "\${args[*]:0:2}" >> "$CALLS" ;;
  esac
}
docker() { echo "docker $1" >> "$CALLS"; }
`;

describe('docs/kubernetes.md walkthrough', () => {
  let root: string;
  let objects: K8sObject[];
  let calls: string[];
  let created: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'continuum-walkthrough-'));
    cpSync(DEPLOY_DIR, join(root, 'deploy'), { recursive: true });
    const env = {
      ...process.env,
      KUBECONFIG: '/dev/null',
      RENDERED: join(root, 'rendered.yaml'),
      CALLS: join(root, 'calls.txt'),
      CREATED: join(root, 'created.json'),
      DB_PASSWORD: 'walkthrough-db',
      VLLM_API_KEY: 'walkthrough-vllm',
      CHAT_API_KEY: 'walkthrough-chat',
      SPEECH_API_KEY: 'walkthrough-speech',
    };
    execFileSync('bash', ['-c', `${SHIMS}\n${walkthrough()}`], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
    calls = readFileSync(env.CALLS, 'utf8').trim().split('\n');
    created = readFileSync(env.CREATED, 'utf8');
    objects = renderDirectory(join(root, 'site'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('runs every step, in order, from the repository root', () => {
    expect(calls).toEqual([
      'docker build',
      'docker push',
      'create namespace continuum',
      'create secret generic',
      'create secret generic',
      'create secret generic',
      'apply -k site',
      'rollout status',
    ]);
    for (const name of ['continuum-database', 'continuum-upstream-keys', 'continuum-starting-key'])
      expect(created).toContain(`"name": "${name}"`);
  });

  it('applies production with a model server on a plain cluster, valid and within every rule', () => {
    expect(clusterExtensions(objects)).toEqual([]);
    expect(schemaFailures(objects)).toEqual([]);
    expect(policyViolations(objects)).toEqual([]);
    expect(new Set(objects.map((o) => o.metadata.namespace))).toEqual(new Set(['continuum']));
    const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'continuum')!;
    // Every container, the migrations' init container included, runs the image the walkthrough pushed.
    const pod = deployment.spec.template.spec;
    const images = [...pod.initContainers, ...pod.containers].map((c: { image: string }) => c.image);
    expect(images).toEqual(['registry.example.com/team/continuum:0.1.0', 'registry.example.com/team/continuum:0.1.0']);
    const ingress = objects.find((o) => o.kind === 'Ingress')!;
    expect(ingress.spec.rules[0].host).toBe('speech.example.com');
    // The Secrets the walkthrough creates are the ones the pods reference.
    const referenced = JSON.stringify(deployment).match(/"(?:secretName|name)":"(continuum-[a-z-]+)"/g) ?? [];
    for (const secret of ['continuum-database', 'continuum-upstream-keys', 'continuum-starting-key'])
      expect(referenced.join()).toContain(secret);
  });
});
