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
const DRAIN_GRACE_DEFAULT = 10;

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

/** Every violation of every rule, prefixed by the rule's name. */
export function policyViolations(objects: readonly K8sObject[]): string[] {
  return Object.entries(rules).flatMap(([name, rule]) => rule(objects).map((v) => `${name}: ${v}`));
}
