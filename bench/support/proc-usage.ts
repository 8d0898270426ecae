/**
 * CPU time and RSS of other processes, read from /proc: how a benchmark measures a server it
 * forked (or a database backend) without asking it, at exactly the instants it chooses.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

/** USER_HZ: the unit of utime/stime in /proc/<pid>/stat (100 on Linux nearly everywhere). */
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** User plus system CPU seconds the process has used so far; null when it is gone or unreadable. */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return (utime + stime) / clockTicks();
  } catch {
    return null;
  }
}

/** Resident set size in MiB; null when the process is gone. */
export function rssMb(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Summed CPU seconds of several processes (those that vanished count as zero). */
export function totalCpuSeconds(pids: readonly number[]): number {
  let total = 0;
  for (const pid of pids) total += cpuSeconds(pid) ?? 0;
  return total;
}

/** Busy and total CPU seconds of the whole machine (all cores) so far, from /proc/stat. */
export function machineCpuSeconds(): { busy: number; total: number } {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    const total = user + nice + system + idle + iowait + irq + softirq + steal;
    return { busy: (total - idle - iowait) / clockTicks(), total: total / clockTicks() };
  } catch {
    return { busy: 0, total: 0 };
  }
}

/**
 * CPU time the hypervisor gave to other guests while this machine's CPUs wanted to run (the `steal`
 * column of /proc/stat, all CPUs), in seconds; null where unreadable. On a virtual machine a stolen
 * slice stalls every process on that CPU for milliseconds, which a latency tail shows.
 */
export function stealSeconds(): number | null {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/);
    return Number(cpu[8]) / clockTicks();
  } catch {
    return null;
  }
}
