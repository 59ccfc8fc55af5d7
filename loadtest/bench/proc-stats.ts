/** CPU time and resident memory of other processes, read from /proc (Linux). */
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

/** User + system CPU seconds a process has used so far, or 0 when it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat, i.e. 12 and 13 after the name.
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** A process's children (Linux ≥ 3.5 lists them per thread; the main thread's list is enough). */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter((text) => text !== '')
      .map(Number);
  } catch {
    return [];
  }
}

export function totalCpuSeconds(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
}

/** Resident set size in bytes (VmRSS), or 0 when the process is gone. */
export function rssBytes(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match?.[1] ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Machine-wide busy and steal CPU seconds over all cores, from /proc/stat (zeros if unreadable). */
function machineCpu(): { busy: number; steal: number } {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    // user, nice, system, idle, iowait, irq, softirq, steal: busy leaves out idle and iowait.
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = line
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    return {
      busy: (user + nice + system + irq + softirq) / TICKS_PER_SECOND,
      steal: steal / TICKS_PER_SECOND,
    };
  } catch {
    return { busy: 0, steal: 0 };
  }
}

/**
 * Starts a window on the machine-wide CPU counters. The function returned ends it, given the CPU
 * seconds the benchmark's other processes (servers, Redis, load clients) used meanwhile, and says
 * how many cores outside processes (machine busy time less ours, this process's included) and the
 * hypervisor's steal took per second of the window.
 */
export function machineWindow() {
  const before = machineCpu();
  const self = process.cpuUsage();
  const started = Date.now();
  return (ourCpuSeconds: number) => {
    const after = machineCpu();
    const own = process.cpuUsage(self);
    const wallSeconds = (Date.now() - started) / 1000;
    const ours = ourCpuSeconds + (own.user + own.system) / 1e6;
    return {
      wallSeconds,
      outsideCores: Math.max(0, (after.busy - before.busy - ours) / wallSeconds),
      stealCores: (after.steal - before.steal) / wallSeconds,
    };
  };
}
