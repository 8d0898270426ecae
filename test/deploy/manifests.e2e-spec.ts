import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MetricsService } from '../../src/modules/metrics/metrics.service';
import { clusterExtensions, policyViolations, rules, upstreamUrls } from './manifest-policy';
import { Component, DEPLOY_DIR, K8sObject, OVERLAYS, Overlay, renderOverlay, schemaFailures } from './manifests';

/**
 * deploy/ proven without a cluster: every overlay renders with `kubectl kustomize`, every object is
 * valid against the Kubernetes (and Prometheus Operator) schemas, and every policy rule holds; a copy
 * with one rule broken fails that rule.
 */
const rendered = new Map<string, K8sObject[]>();
const render = (overlay: Overlay, ...components: Component[]): K8sObject[] => {
  const key = [overlay, ...components].join('+');
  if (!rendered.has(key)) rendered.set(key, renderOverlay(overlay, components));
  return structuredClone(rendered.get(key)!);
};
/** The richest installation: workers, monitoring and model servers together. */
const everything = () => render('production-workers', 'monitoring', 'model-server');
const find = (objects: K8sObject[], kind: string, name: string): K8sObject => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind}/${name}`);
  return found;
};
const service = (objects: K8sObject[]) => find(objects, 'Deployment', 'continuum').spec.template.spec;
const worker = (objects: K8sObject[]) => find(objects, 'Deployment', 'continuum-worker').spec.template.spec;

describe.each(OVERLAYS)('overlay %s', (overlay) => {
  it('renders, validates against the schemas and follows every rule', () => {
    const objects = render(overlay);
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(
      expect.arrayContaining(['Deployment/continuum', 'Service/continuum', 'ServiceAccount/continuum']),
    );
    expect(schemaFailures(objects)).toEqual([]);
    expect(policyViolations(objects)).toEqual([]);
  });
});

const VARIANTS: [Overlay, Component[]][] = [
  ['production', ['monitoring']],
  ['production', ['model-server']],
  ['production-workers', ['monitoring', 'model-server']],
];

describe.each(VARIANTS)('overlay %s with components %j', (overlay, components) => {
  it('renders, validates against the schemas and follows every rule', () => {
    const objects = render(overlay, ...components);
    expect(schemaFailures(objects)).toEqual([]);
    expect(policyViolations(objects)).toEqual([]);
  });
});

describe('overlay shapes', () => {
  it('embedded: one replica, Recreate, the data directory on a claim, no database URL', () => {
    const objects = render('embedded');
    const deployment = find(objects, 'Deployment', 'continuum');
    expect(deployment.spec).toMatchObject({ replicas: 1, strategy: { type: 'Recreate' } });
    const data = deployment.spec.template.spec.volumes.find((v: { name: string }) => v.name === 'data');
    expect(data).toEqual({ name: 'data', persistentVolumeClaim: { claimName: 'continuum-data' } });
    find(objects, 'PersistentVolumeClaim', 'continuum-data');
    expect(JSON.stringify(deployment)).not.toContain('DATABASE_URL');
  });

  it('every overlay applies on a plain cluster: no CRD, no metrics adapter', () => {
    for (const overlay of OVERLAYS) expect([overlay, clusterExtensions(render(overlay))]).toEqual([overlay, []]);
  });

  it('production: ≥ 2 replicas owned by a CPU autoscaler, budgeted, spread, migrations in an init container', () => {
    const objects = render('production');
    const deployment = find(objects, 'Deployment', 'continuum');
    expect(deployment.spec.replicas).toBeUndefined();
    const hpa = find(objects, 'HorizontalPodAutoscaler', 'continuum');
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.spec.metrics.map((m: { type: string }) => m.type)).toEqual(['Resource']);
    expect(find(objects, 'PodDisruptionBudget', 'continuum').spec.minAvailable).toBe(1);
    expect(deployment.spec.template.spec.topologySpreadConstraints).toHaveLength(2);
    expect(deployment.spec.template.spec.initContainers[0].command).toEqual(['node', 'dist/src/bin/migrate.js']);
    const url = deployment.spec.template.spec.containers[0].env.find(
      (e: { name: string }) => e.name === 'DATABASE_URL',
    );
    expect(url.valueFrom.secretKeyRef).toEqual({ name: 'continuum-database', key: 'url' });
    find(objects, 'NetworkPolicy', 'continuum');
    // Only public paths reach the service from outside, and the client address comes through the controller.
    const paths = find(objects, 'Ingress', 'continuum').spec.rules[0].http.paths.map((p: { path: string }) => p.path);
    expect(paths).toEqual(['/v1', '/v2', '/docs', '/playground']);
    const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('continuum-config'));
    expect(config?.data).toMatchObject({ TRUST_PROXY: '1', METRICS_PORT: '9090' });
  });

  it("WebRTC calls: one UDP port on the node, announced as the node's address, admitted by the policy", () => {
    for (const overlay of OVERLAYS) {
      const container = service(render(overlay)).containers[0];
      expect(container.ports).toContainEqual({ name: 'webrtc', containerPort: 3479, hostPort: 3479, protocol: 'UDP' });
      const env = container.env as { name: string; value?: string; valueFrom?: unknown }[];
      expect(env.find((e) => e.name === 'WEBRTC_UDP_PORT')?.value).toBe('3479');
      expect(env.find((e) => e.name === 'WEBRTC_ANNOUNCED_ADDRESSES')?.valueFrom).toEqual({
        fieldRef: { fieldPath: 'status.hostIP' },
      });
    }
    const policy = find(render('production'), 'NetworkPolicy', 'continuum');
    expect(policy.spec.ingress).toContainEqual({ ports: [{ port: 'webrtc', protocol: 'UDP' }] });
  });

  it("calls' sidebands: each pod's INSTANCE_URL is its own IP on the app's port, and pods may reach each other there", () => {
    for (const overlay of OVERLAYS) {
      const env = service(render(overlay)).containers[0].env as { name: string; value?: string; valueFrom?: unknown }[];
      const podIp = env.findIndex((e) => e.name === 'POD_IP');
      const instanceUrl = env.findIndex((e) => e.name === 'INSTANCE_URL');
      expect(env[podIp]?.valueFrom).toEqual({ fieldRef: { fieldPath: 'status.podIP' } });
      // Kubernetes expands $(POD_IP) only from variables defined before it.
      expect(podIp).toBeLessThan(instanceUrl);
      expect(env[instanceUrl].value).toBe(`http://$(POD_IP):${env.find((e) => e.name === 'PORT')?.value}`);
    }
    const policy = find(render('production'), 'NetworkPolicy', 'continuum');
    const api = {
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'continuum', 'app.kubernetes.io/component': 'api' } },
    };
    expect(policy.spec.ingress).toContainEqual({ from: [api], ports: [{ port: 'http', protocol: 'TCP' }] });
    expect(policy.spec.egress).toContainEqual({ to: [api], ports: [{ port: 8080, protocol: 'TCP' }] });
  });

  it('monitoring (opt-in): ServiceMonitor on the metrics port, alerts, the sessions metric in the HPA', () => {
    const objects = render('production', 'monitoring');
    expect(clusterExtensions(objects).sort()).toEqual([
      'CRD monitoring.coreos.com/v1 PrometheusRule',
      'CRD monitoring.coreos.com/v1 ServiceMonitor',
      'metrics adapter for HPA/continuum Pods metric',
    ]);
    expect(find(objects, 'ServiceMonitor', 'continuum').spec.endpoints).toEqual([
      { port: 'metrics', path: '/metrics', interval: '15s' },
    ]);
    const hpa = find(objects, 'HorizontalPodAutoscaler', 'continuum');
    expect(hpa.spec.metrics[1]).toMatchObject({
      type: 'Pods',
      pods: { metric: { name: 'continuum_engine_streams_in_use' } },
    });
    const alerts = find(objects, 'PrometheusRule', 'continuum').spec.groups[0].rules.map(
      (r: { alert: string }) => r.alert,
    );
    expect(alerts).toEqual([
      'ContinuumNoReadyReplica',
      'ContinuumRefusalsRising',
      'ContinuumEngineCapacityExhausted',
      'ContinuumMeterFlushLag',
      'ContinuumEscapedErrors',
    ]);
  });

  it('model-server: the engines document mounted at ENGINES_FILE, upstream keys as Secret files, egress admitted', () => {
    const objects = render('production', 'model-server');
    const pod = service(objects);
    const container = pod.containers[0];
    const enginesFile = container.env.find((e: { name: string }) => e.name === 'ENGINES_FILE').value as string;
    const mounts = container.volumeMounts as { name: string; mountPath: string }[];
    const volume = (name: string) => pod.volumes.find((v: { name: string }) => v.name === name);
    const enginesMount = mounts.find((m) => enginesFile.startsWith(`${m.mountPath}/`))!;
    const map = find(objects, 'ConfigMap', volume(enginesMount.name).configMap.name);
    const document = JSON.parse(map.data[enginesFile.slice(enginesMount.mountPath.length + 1)]) as {
      engines: Record<string, { kind: string; apiKey?: { file: string }; chat?: { apiKey: { file: string } } }>;
    };
    expect(document.engines.vllm.kind).toBe('remote');
    expect(document.engines.voicechat.kind).toBe('cascade');
    const keys = mounts.find((m) => m.name === 'upstream-keys')!;
    expect(volume('upstream-keys').secret.secretName).toBe('continuum-upstream-keys');
    for (const file of [document.engines.vllm.apiKey!.file, document.engines.voicechat.chat!.apiKey.file])
      expect(file.startsWith(`${keys.mountPath}/`)).toBe(true);
    expect(upstreamUrls(objects).map((u) => u.port || u.protocol)).toEqual(['8000', 'https:', '8880']);
    // The production policy alone drops the model servers' traffic.
    const withoutEgress = objects.filter((o) => o.metadata.name !== 'continuum-model-servers');
    expect(rules.upstreamsAdmitted(withoutEgress)).toHaveLength(3);
  });

  it('production-workers: Continuum workers behind a headless Service the gateways are pointed at', () => {
    const objects = render('production-workers');
    const headless = find(objects, 'Service', 'continuum-worker');
    expect(headless.spec.clusterIP).toBe('None');
    const labels = find(objects, 'Deployment', 'continuum-worker').spec.template.metadata.labels;
    expect(labels).toMatchObject(headless.spec.selector);
    const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('continuum-config'));
    const engines = JSON.parse(config?.data.ENGINES_JSON) as {
      engines: { workers: { workers: string[]; resolveDns: boolean; apiKey: { env: string } } };
      models: Record<string, string>;
    };
    const pool = engines.engines.workers;
    expect(new URL(pool.workers[0]).hostname).toBe(headless.metadata.name);
    expect(pool.resolveDns).toBe(true);
    expect(engines.models['vendor-asr-streaming']).toBe('workers');
    // The key the gateways present is the one the workers provision at start, both from one Secret.
    const gatewayEnv = service(objects).containers[0].env as { name: string; valueFrom?: object }[];
    const workerEnv = worker(objects).containers[0].env as { name: string; valueFrom?: object }[];
    expect(gatewayEnv.find((e) => e.name === pool.apiKey.env)?.valueFrom).toEqual({
      secretKeyRef: { name: 'continuum-worker-key', key: 'api-key' },
    });
    expect(workerEnv.find((e) => e.name === 'STARTING_API_KEY')?.valueFrom).toEqual({
      secretKeyRef: { name: 'continuum-worker-key', key: 'api-key' },
    });
    // Budgeted, spread over nodes, scraped by the monitoring component's ServiceMonitor.
    expect(find(objects, 'PodDisruptionBudget', 'continuum-worker').spec.selector.matchLabels).toEqual(labels);
    expect(worker(objects).topologySpreadConstraints).toHaveLength(2);
    const monitor = find(everything(), 'ServiceMonitor', 'continuum');
    expect(headless.metadata.labels).toMatchObject(monitor.spec.selector.matchLabels);
    expect(headless.spec.ports.map((p: { name: string }) => p.name)).toContain(monitor.spec.endpoints[0].port);
    find(objects, 'NetworkPolicy', 'continuum-worker');
  });
});

/** One mutation per rule, on a copy of the richest overlay: the rule must catch it. */
const breakages: [rule: keyof typeof rules, description: string, mutate: (objects: K8sObject[]) => void][] = [
  ['probes', 'no readiness probe', (o) => delete service(o).containers[0].readinessProbe],
  ['probes', 'liveness on the wrong path', (o) => (worker(o).containers[0].livenessProbe.httpGet.path = '/')],
  ['probes', 'no startup probe', (o) => delete worker(o).containers[0].startupProbe],
  ['resources', 'an init container without resources', (o) => delete service(o).initContainers[0].resources],
  [
    'securityContext',
    'a writable root filesystem',
    (o) => (worker(o).containers[0].securityContext.readOnlyRootFilesystem = false),
  ],
  ['securityContext', 'root allowed', (o) => delete service(o).securityContext.runAsNonRoot],
  [
    'securityContext',
    'privilege escalation',
    (o) => delete service(o).initContainers[0].securityContext.allowPrivilegeEscalation,
  ],
  ['securityContext', 'capabilities kept', (o) => (service(o).containers[0].securityContext.capabilities.drop = [])],
  ['securityContext', 'no seccomp profile', (o) => delete worker(o).securityContext.seccompProfile],
  ['writableVolumes', 'no /tmp volume', (o) => service(o).containers[0].volumeMounts.pop()],
  ['gracePeriod', 'grace no longer than drain + preStop', (o) => (service(o).terminationGracePeriodSeconds = 130)],
  ['hpaOwnsReplicas', 'replicas under the HPA', (o) => (find(o, 'Deployment', 'continuum').spec.replicas = 2)],
  [
    'replicatedSafely',
    'no worker budget',
    (o) => o.splice(o.indexOf(find(o, 'PodDisruptionBudget', 'continuum-worker')), 1),
  ],
  ['replicatedSafely', 'workers not spread', (o) => delete worker(o).topologySpreadConstraints],
  [
    'readinessTolerance',
    'readiness fails on one miss',
    (o) => (service(o).containers[0].readinessProbe.failureThreshold = 1),
  ],
  [
    'metricsOffPublicPort',
    'no METRICS_PORT',
    (o) =>
      worker(o).containers[0].env.splice(
        worker(o).containers[0].env.findIndex((e: { name: string }) => e.name === 'METRICS_PORT'),
        1,
      ),
  ],
  [
    'metricsOffPublicPort',
    'the Ingress routes /',
    (o) => (find(o, 'Ingress', 'continuum').spec.rules[0].http.paths[0].path = '/'),
  ],
  [
    'trustProxyBehindIngress',
    'no TRUST_PROXY behind the Ingress',
    (o) =>
      delete o.find((x) => x.kind === 'ConfigMap' && x.metadata.name.startsWith('continuum-config'))!.data.TRUST_PROXY,
  ],
  [
    'upstreamsAdmitted',
    'a model server on a port the policy drops',
    (o) => find(o, 'NetworkPolicy', 'continuum-model-servers').spec.egress[0].ports.pop(),
  ],
  ['gracePeriod', 'no preStop delay', (o) => delete worker(o).containers[0].lifecycle],
  ['imagesPinned', 'latest', (o) => (service(o).containers[0].image = 'registry.example.com/continuum:latest')],
  ['imagesPinned', 'no tag', (o) => (service(o).initContainers[0].image = 'registry.example.com:5000/continuum')],
  [
    'secretsReferenced',
    'a literal DATABASE_URL',
    (o) => service(o).containers[0].env.push({ name: 'DATABASE_URL', value: 'postgres://u:p@db/x' }),
  ],
  [
    'secretsReferenced',
    'an inlined Secret',
    (o) => o.push({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { url: 'x' } }),
  ],
  [
    'secretsReferenced',
    'a key in a ConfigMap',
    (o) => (o.find((x) => x.kind === 'ConfigMap')!.data.STARTING_API_KEY = 'wk_abcdefghijklmnop'),
  ],
  [
    'ingressTimeouts',
    'read timeout under the session limit',
    (o) =>
      (find(o, 'Ingress', 'continuum').metadata.annotations!['nginx.ingress.kubernetes.io/proxy-read-timeout'] = '60'),
  ],
  [
    'ingressTimeouts',
    'session limit raised past the timeouts',
    (o) => (o.find((x) => x.kind === 'ConfigMap')!.data.MAX_SESSION_SECONDS = '600'),
  ],
];

describe('a broken rule fails', () => {
  it.each(breakages)('%s: %s', (rule, _description, mutate) => {
    const objects = everything();
    expect(rules[rule](objects)).toEqual([]);
    mutate(objects);
    expect(rules[rule](objects).length).toBeGreaterThan(0);
    expect(policyViolations(objects).some((v) => v.startsWith(`${rule}: `))).toBe(true);
  });

  it('a schema violation fails validation', () => {
    const objects = render('production', 'monitoring');
    find(objects, 'Deployment', 'continuum').spec.replicas = 'two';
    find(objects, 'ServiceMonitor', 'continuum').spec.endpoints[0].interval = 15;
    const failures = schemaFailures(objects);
    expect(failures.map((f) => f.error)).toEqual([
      expect.stringContaining('spec/replicas must be integer'),
      expect.stringContaining('spec/endpoints/0/interval must be string'),
    ]);
  });
});

describe('monitoring', () => {
  /** Metric names in PromQL, histogram series folded onto their metric; kube-state-metrics' are not ours. */
  const metricsIn = (exprs: string[]): string[] => [
    ...new Set(
      exprs.flatMap((e) =>
        [...e.matchAll(/\b((?:continuum|http)_[a-z_]+)\b/g)].map((m) => m[1].replace(/_(bucket|sum|count)$/, '')),
      ),
    ),
  ];
  const exported = async (): Promise<string[]> =>
    (await new MetricsService().registry.getMetricsAsJSON()).map((m) => m.name);

  it('alerts use only metrics the service exports', async () => {
    const rule = find(render('production', 'monitoring'), 'PrometheusRule', 'continuum');
    const used = metricsIn(rule.spec.groups[0].rules.map((r: { expr: string }) => r.expr));
    expect(used.length).toBeGreaterThanOrEqual(4);
    expect(await exported()).toEqual(expect.arrayContaining(used));
  });

  it('the Grafana dashboard is valid JSON and charts only metrics the service exports', async () => {
    const dashboard = JSON.parse(readFileSync(join(DEPLOY_DIR, 'grafana', 'continuum-dashboard.json'), 'utf8')) as {
      uid: string;
      panels: { title: string; targets: { expr: string }[] }[];
    };
    expect(dashboard.uid).toBe('continuum');
    const used = metricsIn(dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)));
    expect(used).toEqual(
      expect.arrayContaining([
        'continuum_sessions_opened_total',
        'continuum_sessions_closed_total',
        'continuum_refusals_total',
        'continuum_engine_streams_in_use',
        'continuum_engine_streams_free',
        'continuum_audio_seconds_total',
        'continuum_time_to_first_partial_seconds',
        'continuum_time_to_final_seconds',
        'continuum_meter_flush_lag_seconds',
        'continuum_db_pool_connections',
      ]),
    );
    expect(await exported()).toEqual(expect.arrayContaining(used));
  });
});
