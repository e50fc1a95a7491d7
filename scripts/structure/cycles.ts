/**
 * Import cycles in a file graph: the strongly connected components (Tarjan),
 * each reported with one shortest cycle through it so the message names the
 * files to untangle.
 */

/** One group of files that import each other, directly or through each other. */
export interface ImportCycle {
  /** A shortest cycle through the group's first file (by name), ending where it starts. */
  path: string[];
  /** Every file of the group, sorted. */
  files: string[];
}

/** The cycles of `graph` (file -> files it imports), sorted by their first file. Self-imports count. */
export function findImportCycles(graph: ReadonlyMap<string, ReadonlySet<string>>): ImportCycle[] {
  return stronglyConnected(graph)
    .filter((group) => group.length > 1 || graph.get(group[0]!)?.has(group[0]!))
    .map((group) => {
      const files = [...group].sort();
      return { files, path: shortestCycle(graph, files[0]!, new Set(files)) };
    })
    .sort((a, b) => a.files[0]!.localeCompare(b.files[0]!));
}

function stronglyConnected(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  let counter = 0;
  // Iterative, so a long import chain cannot overflow the call stack.
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; next: Iterator<string> }[] = [];
    const enter = (node: string) => {
      index.set(node, counter);
      low.set(node, counter);
      counter++;
      stack.push(node);
      onStack.add(node);
      work.push({ node, next: (graph.get(node) ?? new Set<string>()).values() });
    };
    enter(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const step = frame.next.next();
      if (!step.done) {
        const target = step.value;
        if (!index.has(target)) enter(target);
        else if (onStack.has(target)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const group: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          group.push(member);
        } while (member !== frame.node);
        groups.push(group);
      }
    }
  }
  return groups;
}

function shortestCycle(
  graph: ReadonlyMap<string, ReadonlySet<string>>,
  start: string,
  within: ReadonlySet<string>,
): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head]!;
    for (const target of graph.get(node) ?? []) {
      if (!within.has(target)) continue;
      if (target === start) {
        const path = [start];
        for (let at: string | undefined = node; at !== undefined && at !== start; at = previous.get(at))
          path.splice(1, 0, at);
        return [...path, start];
      }
      if (!previous.has(target)) {
        previous.set(target, node);
        queue.push(target);
      }
    }
  }
  return [start, start];
}
