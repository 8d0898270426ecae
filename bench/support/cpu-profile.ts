/**
 * Reads a V8 .cpuprofile (node --cpu-prof) into where the time went: self time by function and
 * by area (a package, a folder of our source, Node's internals, GC), largest first.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileEntry {
  name: string;
  /** Share of the profile's non-idle time, %. */
  percent: number;
  ms: number;
}

export interface ProfileSummary {
  /** Non-idle sampled time, ms. */
  busyMs: number;
  byArea: ProfileEntry[];
  byFunction: ProfileEntry[];
}

export function summarizeProfile(path: string, top = 25): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const ignored = inspectorNodes(profile.nodes, nodes);
  const byFunction = new Map<string, number>();
  const byArea = new Map<string, number>();
  let busyUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = nodes.get(profile.samples[i]);
    const us = profile.timeDeltas[i] ?? 0;
    if (!node || node.callFrame.functionName === '(idle)' || ignored.has(node.id)) continue;
    busyUs += us;
    const { functionName, url, lineNumber } = node.callFrame;
    const fn = `${functionName || '(anonymous)'} ${shortUrl(url)}${url ? `:${lineNumber + 1}` : ''}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    const area = areaOf(functionName, url);
    byArea.set(area, (byArea.get(area) ?? 0) + us);
  }
  const ranked = (totals: Map<string, number>) =>
    [...totals.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: Math.round(us / 1000), percent: Math.round((1000 * us) / busyUs) / 10 }));
  return { busyMs: Math.round(busyUs / 1000), byArea: ranked(byArea), byFunction: ranked(byFunction) };
}

/** The profiler's own work (stopping and serialising the profile), which is not the server's. */
function inspectorNodes(all: ProfileNode[], nodes: Map<number, ProfileNode>): Set<number> {
  const ignored = new Set<number>();
  const mark = (id: number) => {
    ignored.add(id);
    for (const child of nodes.get(id)?.children ?? []) mark(child);
  };
  for (const node of all) if (node.callFrame.url === 'node:inspector' && !ignored.has(node.id)) mark(node.id);
  return ignored;
}

function areaOf(functionName: string, url: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) {
    const parts = url.slice(5).split('/');
    return `node:${parts[0] === 'internal' ? parts.slice(0, 2).join('/') : parts[0]}`;
  }
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + 14).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  // Our code, wherever it was built to: its top folder and the one below (src/session-core/).
  const path = ownPath(url);
  const parts = path.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}/` : path;
}

/** A file of ours from its top folder (src/, libs/, bench/) on; a package's from its name on. */
function shortUrl(url: string): string {
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) return url.slice(modules + 14);
  return url.startsWith('node:') ? url.slice(5) : ownPath(url);
}

function ownPath(url: string): string {
  const at = Math.max(url.lastIndexOf('/src/'), url.lastIndexOf('/libs/'), url.lastIndexOf('/bench/'));
  // Elsewhere on the machine (a temporary build, say): only the file's name, never the machine's folders.
  return at >= 0 ? url.slice(at + 1) : url.slice(url.lastIndexOf('/') + 1);
}
