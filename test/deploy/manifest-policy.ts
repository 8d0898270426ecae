import type { K8sObject } from './manifests';

/**
 * The rules every rendered overlay must follow (issue 14, README "Kubernetes"). Each rule is a pure
 * function of the rendered objects returning its violations, so a test can break one rule on a copy
 * and see exactly that rule fail.
 */
export type Rule = (objects: readonly K8sObject[]) => string[];

/** Variables whose values are credentials: never a literal in a manifest, always a Secret reference. */
const SENSITIVE_ENV = /(^DATABASE_URL$|KEY|PASSWORD|SECRET|TOKEN)/;
const CREDENTIAL_VALUE = /(wk_|ek_)[A-Za-z0-9]{8,}|postgres(ql)?:\/\/[^/\s]*:[^@/\s]+@/;
const SESSION_LIMIT_DEFAULT = 120;
const DRAIN_GRACE_DEFAULT = 7;
/** A readiness probe must ride out this many seconds of misses (a blip, a database failover). */
const READINESS_TOLERANCE_SECONDS = 15;

interface PodOwner {
  object: K8sObject;
  pod: Record<string, any>;
}

function podOwners(objects: readonly K8sObject[]): PodOwner[] {
  const owners: PodOwner[] = [];
  for (const object of objects) {
    if (['Deployment', 'StatefulSet', 'DaemonSet', 'Job'].includes(object.kind)) {
      owners.push({ object, pod: object.spec?.template?.spec ?? {} });
    }
  }
  return owners;
}

const containersOf = (pod: Record<string, any>): Record<string, any>[] => pod.containers ?? [];
const allContainersOf = (pod: Record<string, any>): Record<string, any>[] => [
  ...(pod.initContainers ?? []),
  ...containersOf(pod),
];
const where = (o: PodOwner, c: Record<string, any>): string => `${o.object.kind}/${o.object.metadata.name} ${c.name}`;

/** A container's environment as the pod would see it: envFrom ConfigMaps, then env literals. */
export function environmentOf(objects: readonly K8sObject[], container: Record<string, any>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    const map = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === source.configMapRef?.name);
    Object.assign(env, map?.data ?? {});
  }
  for (const variable of container.env ?? [])
    if (typeof variable.value === 'string') env[variable.name] = variable.value;
  return env;
}

function preStopSeconds(container: Record<string, any>): number | null {
  const preStop = container.lifecycle?.preStop;
  if (typeof preStop?.sleep?.seconds === 'number') return preStop.sleep.seconds;
  const command: unknown[] = preStop?.exec?.command ?? [];
  const i = command.indexOf('sleep');
  return i >= 0 && /^\d+$/.test(String(command[i + 1])) ? Number(command[i + 1]) : null;
}

export const rules: Record<string, Rule> = {
  /** The HPA owns the count: a replicas field would reset it to that number on every apply. */
  hpaOwnsReplicas: (objects) =>
    objects
      .filter((o) => o.kind === 'HorizontalPodAutoscaler')
      .map((hpa) => objects.find((o) => o.kind === 'Deployment' && o.metadata.name === hpa.spec.scaleTargetRef?.name))
      .filter((d): d is K8sObject => d?.spec?.replicas !== undefined)
      .map((d) => `Deployment/${d.metadata.name}: sets replicas under an HPA`),

  /** Several replicas: a disruption budget and a spread over nodes, so one node drain is not an outage. */
  replicatedSafely: (objects) =>
    objects
      .filter((o) => o.kind === 'Deployment')
      .filter(
        (d) =>
          (d.spec.replicas ?? 1) > 1 ||
          objects.some((o) => o.kind === 'HorizontalPodAutoscaler' && o.spec.scaleTargetRef?.name === d.metadata.name),
      )
      .flatMap((d) => {
        const labels = d.spec.template.metadata?.labels;
        const out: string[] = [];
        if (!objects.some((o) => o.kind === 'PodDisruptionBudget' && selects(o.spec.selector?.matchLabels, labels)))
          out.push(`Deployment/${d.metadata.name}: no PodDisruptionBudget`);
        const spread = d.spec.template.spec.topologySpreadConstraints ?? [];
        if (!spread.some((c: { topologyKey: string }) => c.topologyKey === 'kubernetes.io/hostname'))
          out.push(`Deployment/${d.metadata.name}: not spread over nodes`);
        return out;
      }),

  readinessTolerance: (objects) =>
    podOwners(objects).flatMap((o) =>
      containersOf(o.pod).flatMap((c) => {
        const p = c.readinessProbe ?? {};
        const seconds = (p.periodSeconds ?? 10) * (p.failureThreshold ?? 3);
        return seconds >= READINESS_TOLERANCE_SECONDS
          ? []
          : [`${where(o, c)}: readiness fails after ${seconds} s of misses (< ${READINESS_TOLERANCE_SECONDS})`];
      }),
    ),

  /** With METRICS_PORT, the port is declared (named `metrics`), the Service exposes it and no Ingress routes to it. */
  metricsOffPublicPort: (objects) => {
    const out: string[] = [];
    for (const o of podOwners(objects).filter((x) => x.object.kind !== 'Job')) {
      for (const c of containersOf(o.pod)) {
        const port = Number(environmentOf(objects, c).METRICS_PORT);
        if (!port) {
          out.push(`${where(o, c)}: no METRICS_PORT (/metrics on the public port)`);
          continue;
        }
        const declared = (c.ports ?? []).find((p: { name: string }) => p.name === 'metrics');
        if (declared?.containerPort !== port) out.push(`${where(o, c)}: port metrics is not METRICS_PORT ${port}`);
        const labels = o.object.spec.template.metadata?.labels;
        for (const svc of objects.filter((x) => x.kind === 'Service' && selects(x.spec.selector, labels)))
          if (!svc.spec.ports.some((p: { targetPort: unknown }) => p.targetPort === 'metrics'))
            out.push(`Service/${svc.metadata.name}: does not expose the metrics port`);
      }
    }
    for (const ing of objects.filter((x) => x.kind === 'Ingress'))
      for (const rule of ing.spec.rules ?? [])
        for (const path of rule.http?.paths ?? []) {
          if (path.backend?.service?.port?.name === 'metrics' || path.backend?.service?.port?.number === 9090)
            out.push(`Ingress/${ing.metadata.name}: routes to the metrics port`);
          if (['/', '/metrics', '/healthz', '/readyz'].includes(path.path))
            out.push(`Ingress/${ing.metadata.name}: routes ${path.path}, not only public paths`);
        }
    return out;
  },

  /** Behind an Ingress, every client would be the controller's address without TRUST_PROXY. */
  trustProxyBehindIngress: (objects) => {
    if (!objects.some((o) => o.kind === 'Ingress')) return [];
    const api = podOwners(objects).find(
      (o) => o.object.kind === 'Deployment' && o.object.metadata.name === 'continuum',
    );
    const env = api ? environmentOf(objects, containersOf(api.pod)[0] ?? {}) : {};
    return env.TRUST_PROXY ? [] : ['Deployment/continuum: behind an Ingress without TRUST_PROXY'];
  },

  /** Where NetworkPolicies restrict the API pods' egress, every upstream the engines name is admitted. */
  upstreamsAdmitted: (objects) => {
    const api = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'continuum');
    const labels = api?.spec.template.metadata?.labels;
    const policies = objects.filter(
      (o) =>
        o.kind === 'NetworkPolicy' &&
        o.spec.policyTypes?.includes('Egress') &&
        selects(o.spec.podSelector?.matchLabels, labels),
    );
    if (policies.length === 0) return [];
    const allowed = (port: number) =>
      policies.some((p) =>
        (p.spec.egress ?? []).some(
          (rule: { ports?: { port: number | string }[] }) => !rule.ports || rule.ports.some((x) => x.port === port),
        ),
      );
    return upstreamUrls(objects)
      .filter((u) => !allowed(portOf(u)))
      .map((u) => `NetworkPolicy: no egress to ${u.host} (port ${portOf(u)}) named by the engines`);
  },

  probes: (objects) =>
    podOwners(objects)
      .filter((o) => o.object.kind !== 'Job')
      .flatMap((o) =>
        containersOf(o.pod).flatMap((c) => {
          const out: string[] = [];
          if (c.livenessProbe?.httpGet?.path !== '/healthz') out.push(`${where(o, c)}: liveness must GET /healthz`);
          if (c.readinessProbe?.httpGet?.path !== '/readyz') out.push(`${where(o, c)}: readiness must GET /readyz`);
          if (!c.startupProbe) out.push(`${where(o, c)}: no startup probe (model loading)`);
          return out;
        }),
      ),

  resources: (objects) =>
    podOwners(objects).flatMap((o) =>
      allContainersOf(o.pod).flatMap((c) => {
        const r = c.resources ?? {};
        return r.requests?.cpu && r.requests?.memory && r.limits?.memory
          ? []
          : [`${where(o, c)}: needs cpu and memory requests and a memory limit`];
      }),
    ),

  securityContext: (objects) =>
    podOwners(objects).flatMap((o) => {
      const pod = o.pod.securityContext ?? {};
      return allContainersOf(o.pod).flatMap((c) => {
        const s = c.securityContext ?? {};
        const out: string[] = [];
        if ((s.runAsNonRoot ?? pod.runAsNonRoot) !== true) out.push(`${where(o, c)}: runAsNonRoot`);
        if ((s.runAsUser ?? pod.runAsUser) === 0) out.push(`${where(o, c)}: runs as uid 0`);
        if (s.readOnlyRootFilesystem !== true) out.push(`${where(o, c)}: readOnlyRootFilesystem`);
        if (s.allowPrivilegeEscalation !== false) out.push(`${where(o, c)}: allowPrivilegeEscalation`);
        if (s.privileged === true) out.push(`${where(o, c)}: privileged`);
        if (!(s.capabilities?.drop ?? []).includes('ALL')) out.push(`${where(o, c)}: capabilities not all dropped`);
        if ((s.seccompProfile ?? pod.seccompProfile)?.type !== 'RuntimeDefault') out.push(`${where(o, c)}: seccomp`);
        return out;
      });
    }),

  /** The service writes to DATA_DIR and /tmp: with a read-only root, both must be volumes. */
  writableVolumes: (objects) =>
    podOwners(objects)
      .filter((o) => o.object.kind !== 'Job')
      .flatMap((o) =>
        containersOf(o.pod).flatMap((c) => {
          const mounts: string[] = (c.volumeMounts ?? []).map((m: { mountPath: string }) => m.mountPath);
          const dataDir = environmentOf(objects, c).DATA_DIR ?? '/data';
          return ['/tmp', dataDir].filter((p) => !mounts.includes(p)).map((p) => `${where(o, c)}: no volume at ${p}`);
        }),
      ),

  /** Kubernetes must never kill a pod that is still draining: grace > preStop delay + drain grace. */
  gracePeriod: (objects) =>
    podOwners(objects)
      .filter((o) => o.object.kind !== 'Job')
      .flatMap((o) =>
        containersOf(o.pod).flatMap((c) => {
          const preStop = preStopSeconds(c);
          if (preStop === null || preStop < 1) return [`${where(o, c)}: no preStop delay`];
          const drain = Number(environmentOf(objects, c).SHUTDOWN_GRACE_SECONDS ?? DRAIN_GRACE_DEFAULT);
          const grace = o.pod.terminationGracePeriodSeconds ?? 30;
          return grace > preStop + drain
            ? []
            : [`${where(o, c)}: terminationGracePeriodSeconds ${grace} <= preStop ${preStop} + drain ${drain}`];
        }),
      ),

  imagesPinned: (objects) =>
    podOwners(objects).flatMap((o) =>
      allContainersOf(o.pod).flatMap((c) => {
        const image = String(c.image ?? '');
        if (/@sha256:[0-9a-f]{64}$/.test(image)) return [];
        const tag = /:([^/:@]+)$/.exec(image)?.[1];
        return tag && tag !== 'latest' ? [] : [`${where(o, c)}: image ${image} not pinned by tag or digest`];
      }),
    ),

  secretsReferenced: (objects) => {
    const out: string[] = [];
    for (const o of objects) {
      if (o.kind === 'Secret' && (o.data || o.stringData))
        out.push(`Secret/${o.metadata.name}: inlined in the manifests`);
      if (o.kind === 'ConfigMap') {
        for (const [key, value] of Object.entries<string>(o.data ?? {})) {
          if (SENSITIVE_ENV.test(key) || CREDENTIAL_VALUE.test(value))
            out.push(`ConfigMap/${o.metadata.name}: ${key} looks like a credential`);
        }
      }
    }
    for (const o of podOwners(objects)) {
      for (const c of allContainersOf(o.pod)) {
        for (const v of c.env ?? []) {
          if (v.value !== undefined && (SENSITIVE_ENV.test(v.name) || CREDENTIAL_VALUE.test(String(v.value))))
            out.push(`${where(o, c)}: ${v.name} is a literal, not a Secret reference`);
        }
      }
    }
    return out;
  },

  /** A proxy that times out before the session limit cuts live sessions. */
  ingressTimeouts: (objects) => {
    const service = podOwners(objects).find(
      (o) => o.object.kind === 'Deployment' && o.object.metadata.name === 'continuum',
    );
    const env = service ? environmentOf(objects, containersOf(service.pod)[0] ?? {}) : {};
    const limit = Number(env.MAX_SESSION_SECONDS ?? SESSION_LIMIT_DEFAULT);
    return objects
      .filter((o) => o.kind === 'Ingress')
      .flatMap((o) =>
        ['proxy-read-timeout', 'proxy-send-timeout'].flatMap((name) => {
          const value = Number(o.metadata.annotations?.[`nginx.ingress.kubernetes.io/${name}`]);
          return value >= limit ? [] : [`Ingress/${o.metadata.name}: ${name} ${value} < session limit ${limit}`];
        }),
      );
  },
};

const selects = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
  !!selector && Object.entries(selector).every(([k, v]) => labels?.[k] === v);

/** Every URL an engines document (ENGINES_JSON, or the file a ConfigMap holds) sends traffic to. */
export function upstreamUrls(objects: readonly K8sObject[]): URL[] {
  const documents = objects
    .filter((o) => o.kind === 'ConfigMap')
    .flatMap((o) => Object.entries<string>(o.data ?? {}))
    .filter(([key]) => key === 'ENGINES_JSON' || key.endsWith('engines.json'))
    .map(([, text]) => JSON.parse(text) as { engines: Record<string, any> });
  return documents.flatMap((d) =>
    Object.values(d.engines).flatMap((e) =>
      [...(e.workers ?? []), e.chat?.url, e.speech?.url].filter(Boolean).map((u: string) => new URL(u)),
    ),
  );
}

const portOf = (url: URL): number =>
  url.port ? Number(url.port) : ['https:', 'wss:'].includes(url.protocol) ? 443 : 80;

/** What a cluster needs beyond plain Kubernetes to apply these objects: CRDs and metrics adapters. */
export function clusterExtensions(objects: readonly K8sObject[]): string[] {
  const builtIn = /^(v1|apps\/v1|batch\/v1|policy\/v1|autoscaling\/v2|networking\.k8s\.io\/v1)$/;
  const out = objects.filter((o) => !builtIn.test(o.apiVersion)).map((o) => `CRD ${o.apiVersion} ${o.kind}`);
  for (const hpa of objects.filter((o) => o.kind === 'HorizontalPodAutoscaler'))
    for (const metric of hpa.spec.metrics ?? [])
      if (metric.type !== 'Resource') out.push(`metrics adapter for HPA/${hpa.metadata.name} ${metric.type} metric`);
  return out;
}

/** Every violation of every rule, prefixed by the rule's name. */
export function policyViolations(objects: readonly K8sObject[]): string[] {
  return Object.entries(rules).flatMap(([name, rule]) => rule(objects).map((v) => `${name}: ${v}`));
}
