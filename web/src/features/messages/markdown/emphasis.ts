// A line while it is read, as linked items, and CommonMark's emphasis matched over them.

import { type Inline, MAX_DEPTH } from './syntax';

/**
 * A node of a line while it is read: a doubly linked list, so that emphasis wraps the nodes
 * between its markers without copying the rest of the line.
 */
export type Item = Text | Leaf | Run | Wrapped;

interface Linked {
  prev: Item | null;
  next: Item | null;
}

export interface Text extends Linked {
  kind: 'text';
  text: string;
}

interface Leaf extends Linked {
  kind: 'node';
  node: Inline;
}

/**
 * A run of `*` or `_`, `count` of which are not used as emphasis yet; while it can still open or
 * close emphasis, it is also on the delimiter stack (`below`, `above`).
 */
export interface Run extends Linked {
  kind: 'run';
  char: string;
  count: number;
  /** The run's length as written (CommonMark's "rule of 3" reads it). */
  length: number;
  canOpen: boolean;
  canClose: boolean;
  /** Order in the line, so that a bound on the stack survives removals. */
  index: number;
  below: Run | null;
  above: Run | null;
}

interface Wrapped extends Linked {
  /** Emphasis; or `plain`: markers too deep to be emphasis, shown as text with what they hold. */
  kind: 'em' | 'strong' | 'plain';
  children: Item[];
  /** How many emphasis levels deep it is, with what it holds. */
  depth: number;
}

/**
 * CommonMark's "process emphasis": each closing run, from left to right, takes the nearest run
 * below it that can open it. For each kind of closer, the stack below the last failed search is
 * not searched again, so a line costs time linear in its runs.
 */
export function matchEmphasis(first: Run): void {
  /** Per kind of closer (character, length modulo 3, can open): runs searched already. */
  const searchedTo = new Int32Array(12).fill(-1);
  const remove = (run: Run) => {
    if (run.below) run.below.above = run.above;
    if (run.above) run.above.below = run.below;
  };
  let closer: Run | null = first;
  while (closer) {
    if (!closer.canClose) {
      closer = closer.above;
      continue;
    }
    const kind = (closer.char === '*' ? 0 : 6) + (closer.length % 3) * 2 + (closer.canOpen ? 1 : 0);
    const bottom = searchedTo[kind]!;
    let opener = closer.below;
    while (opener && opener.index > bottom) {
      if (opener.char === closer.char && opener.canOpen) {
        const oddMatch =
          (closer.canOpen || opener.canClose) &&
          closer.length % 3 !== 0 &&
          (opener.length + closer.length) % 3 === 0;
        if (!oddMatch) break;
      }
      opener = opener.below;
    }
    if (opener && opener.index > bottom) {
      // `***x***` is bold italic, the italic inside.
      const both = opener.count === 3 && closer.count === 3;
      const use = opener.count >= 2 && closer.count >= 2 && !both ? 2 : 1;
      opener.count -= use;
      closer.count -= use;
      wrap(opener, closer, use === 2 ? 'strong' : 'em', closer.char.repeat(use));
      // The runs between can no longer match.
      opener.above = closer;
      closer.below = opener;
      if (opener.count === 0) remove(opener);
      if (closer.count === 0) {
        remove(closer);
        closer = closer.above;
      }
    } else {
      searchedTo[kind] = closer.below ? closer.below.index : -1;
      if (!closer.canOpen) remove(closer);
      closer = closer.above;
    }
  }
}

function depthOf(item: Item): number {
  return item.kind === 'em' || item.kind === 'strong' || item.kind === 'plain' ? item.depth : 0;
}

/** Puts the items between `open` and `close` into one emphasis item (or plain text if too deep). */
function wrap(open: Run, close: Run, kind: 'em' | 'strong', marker: string): void {
  const children: Item[] = [];
  let depth = 0;
  for (let item = open.next; item && item !== close; item = item.next) {
    children.push(item);
    depth = Math.max(depth, depthOf(item));
  }
  let wrapped: Wrapped;
  if (depth < MAX_DEPTH) {
    wrapped = { kind, children, depth: depth + 1, prev: open, next: close };
  } else {
    const markerText = (): Text => ({ kind: 'text', text: marker, prev: null, next: null });
    children.unshift(markerText());
    children.push(markerText());
    wrapped = { kind: 'plain', children, depth, prev: open, next: close };
  }
  open.next = wrapped;
  close.prev = wrapped;
}

/** The items from `first` on as inline nodes, adjacent text joined. */
export function toInlines(first: Item | null): Inline[] {
  const items: Item[] = [];
  for (let item = first; item; item = item.next) items.push(item);
  return inlinesOf(items);
}

function inlinesOf(items: readonly Item[]): Inline[] {
  const out: Inline[] = [];
  let text = '';
  const flush = () => {
    if (text !== '') out.push({ type: 'text', text });
    text = '';
  };
  // Plain items nest arbitrarily deep: walked with a stack, not by recursion.
  const stack: { items: readonly Item[]; at: number }[] = [{ items, at: 0 }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const item = top.items[top.at++];
    if (!item) {
      stack.pop();
      continue;
    }
    switch (item.kind) {
      case 'text':
        text += item.text;
        break;
      case 'run':
        if (item.count > 0) text += item.char.repeat(item.count);
        break;
      case 'node':
        flush();
        out.push(item.node);
        break;
      case 'em':
      case 'strong':
        flush();
        out.push({ type: item.kind, children: inlinesOf(item.children) });
        break;
      case 'plain':
        stack.push({ items: item.children, at: 0 });
        break;
    }
  }
  flush();
  return out;
}
