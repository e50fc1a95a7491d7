import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";

/**
 * The ids of the processes descended from `pid` that still run (its
 * children, their children, …), read from `/proc` on Linux and from `ps`
 * on other Unix systems; none on Windows, or when neither can be read.
 *
 * A stdio server is often started through another program: a shell
 * (`sh -c "cd app && node server.js"`), a package runner (`npx`, `uv run`),
 * a container client. Signals sent to that program's id do not reach the
 * server it started, and once the program ended, the server's parent is no
 * longer known: read them before anything is stopped.
 */
export function descendantsOf(pid: number): number[] {
  const parents = parentIds();
  const found: number[] = [];
  const wanted = new Set([pid]);
  // Until nothing new is found: a child may be listed before its parent.
  for (let grew = true; grew; ) {
    grew = false;
    for (const [child, parent] of parents)
      if (wanted.has(parent) && !wanted.has(child)) {
        wanted.add(child);
        found.push(child);
        grew = true;
      }
  }
  return found;
}

/**
 * The ids of the running processes, other than this one, whose
 * environment holds `variable` set to `value`, read from `/proc` on Linux;
 * none on other systems. A process that exited (a zombie) has none; one of
 * another user cannot be read and is not listed.
 *
 * Every process a stdio server started inherits the variable its own
 * process was given (see `SERVER_PROCESS_MARKER_VARIABLE`), also after the
 * server's process ended: a server started through a wrapper that was
 * killed, exited leaving it running, or started it detached (a double
 * fork) is found by it, though it is no descendant of anything we know. A
 * process that cleared its environment is not.
 */
export function processesMarked(variable: string, value: string): number[] {
  if (process.platform !== "linux") return [];
  const entry = Buffer.from(`${variable}=${value}\0`);
  const marked: number[] = [];
  for (const name of listing("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    let environment: Buffer;
    try {
      environment = readFileSync(`/proc/${name}/environ`);
    } catch {
      continue;
    }
    const at = environment.indexOf(entry);
    if (at === 0 || (at > 0 && environment[at - 1] === 0)) marked.push(Number(name));
  }
  return marked;
}

/**
 * Whether process `pid` still runs: it exists and has not ended (a zombie,
 * ended but not yet reaped by its parent, has).
 */
export function isRunning(pid: number): boolean {
  if (process.platform === "linux") {
    const state = procStat(pid)?.state;
    return state !== undefined && state !== "Z" && state !== "X";
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === "EPERM";
  }
}

/** Every process's parent id, by process id. */
function parentIds(): Map<number, number> {
  const parents = new Map<number, number>();
  if (process.platform === "win32") return parents;
  if (process.platform === "linux") {
    for (const entry of listing("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      const stat = procStat(Number(entry));
      if (stat !== undefined) parents.set(Number(entry), stat.parent);
    }
    return parents;
  }
  try {
    const listing = execFileSync("ps", ["-A", "-o", "pid=", "-o", "ppid="], { encoding: "utf8", timeout: 2_000 });
    for (const line of listing.split("\n")) {
      const [pid, parent] = line.trim().split(/\s+/).map(Number);
      if (Number.isInteger(pid) && Number.isInteger(parent)) parents.set(pid!, parent!);
    }
  } catch {}
  return parents;
}

/** The state and parent id of a Linux process, from `/proc/<pid>/stat`; `undefined` when it is gone. */
function procStat(pid: number): { state: string; parent: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // "pid (command) state ppid …": the command may hold spaces and parentheses, so read after the last ")".
  const [state, parent] = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return state === undefined ? undefined : { state, parent: Number(parent) };
}

/** The names in a directory; none when it cannot be read. */
function listing(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}
