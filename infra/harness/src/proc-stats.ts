/** CPU time and resident memory of other processes, read from /proc (Linux). */
import { readFileSync } from 'node:fs';
import { sum } from './probe';

const TICKS_PER_SECOND = 100;

/** A /proc file's text, or '' when it is gone (the process exited) or unreadable. */
function readProc(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** User + system CPU seconds a process has used so far, or 0 when it is gone. */
export function cpuSeconds(pid: number): number {
  const stat = readProc(`/proc/${pid}/stat`);
  // Fields after the command name (which may contain spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of stat, i.e. 12 and 13 after the name.
  return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) / TICKS_PER_SECOND;
}

/** A process's children (Linux ≥ 3.5 lists them per thread; the main thread's list is enough). */
export function childPids(pid: number): number[] {
  return (readProc(`/proc/${pid}/task/${pid}/children`).match(/\d+/g) ?? []).map(Number);
}

/** Resident set size in bytes (VmRSS), or 0 when the process is gone. */
export function rssBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readProc(`/proc/${pid}/status`));
  return match?.[1] ? Number(match[1]) * 1024 : 0;
}

/** Machine-wide busy and steal CPU seconds over all cores, from /proc/stat (zeros if unreadable). */
function machineCpu(): { busy: number; steal: number } {
  // The first line, `cpu` and the ticks of all cores: user, nice, system, idle, iowait, irq,
  // softirq, steal. Busy leaves out idle and iowait.
  const ticks = readProc('/proc/stat').split('\n')[0]?.match(/\d+/g) ?? [];
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = ticks.map(Number);
  return {
    busy: (user + nice + system + irq + softirq) / TICKS_PER_SECOND,
    steal: steal / TICKS_PER_SECOND,
  };
}

/**
 * Starts a window on the CPU of named groups of processes and of the whole machine. The function
 * returned ends it, given the CPU seconds the benchmark's processes outside the groups (load
 * clients) used meanwhile: each group's CPU seconds and their total, the wall seconds, and how
 * many cores outside processes (machine busy time less the groups, those others and this process)
 * and the hypervisor's steal took per second of the window.
 */
export function cpuWindow<K extends string>(groups: Record<K, readonly number[]>) {
  const names = Object.keys(groups) as K[];
  const read = () => names.map((name) => sum(groups[name].map((pid) => cpuSeconds(pid))));
  const before = read();
  const machineBefore = machineCpu();
  const self = process.cpuUsage();
  const started = Date.now();
  return (othersCpuSeconds = 0) => {
    const after = read();
    const machineAfter = machineCpu();
    const own = process.cpuUsage(self);
    const wallSeconds = (Date.now() - started) / 1000;
    const cpu = {} as Record<K, number>;
    names.forEach((name, index) => (cpu[name] = (after[index] ?? 0) - (before[index] ?? 0)));
    const total = sum(Object.values<number>(cpu));
    const ours = total + othersCpuSeconds + (own.user + own.system) / 1e6;
    return {
      cpu,
      total,
      wallSeconds,
      outsideCores: Math.max(0, (machineAfter.busy - machineBefore.busy - ours) / wallSeconds),
      stealCores: (machineAfter.steal - machineBefore.steal) / wallSeconds,
    };
  };
}
