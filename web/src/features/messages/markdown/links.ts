// Links: http(s) and `www.` addresses written in text, each read once.

import { startsWord } from './syntax';

/** Ends a link: white space and what cannot be in an address written in text. */
const LINK_STOP = /[\s<>"`]/u;
/** Punctuation that ends a sentence (or closes markup) rather than a link. */
const LINK_TRAILING = new Set(".,;:!?'*_~");
const OPENER_OF: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
const HOST_ASCII = /[A-Za-z0-9._-]/;
const IPV6 = /[0-9A-Fa-f:.]/;
const DIGIT = /[0-9]/;
const WWW_START = /www\.[\p{L}\p{N}-]+\.[\p{L}\p{N}]/iuy;

function isHostChar(ch: string): boolean {
  return ch.charCodeAt(0) >= 0x80 || HOST_ASCII.test(ch);
}

/** A link as found: as written, and its address. */
interface Link {
  written: string;
  href: string;
}

/**
 * Finds the links of one line: the link that starts at a position, if any, asked from left to
 * right. Each address is read once: the run of text it stands in (up to white space) is measured
 * once, a host once (an address that starts inside a host judged already is not tried), and the
 * brackets of a run are counted only for an address with a valid host and a path, which then
 * takes the run but for what ends the sentence. So a line takes time linear in its length.
 */
export function linkFinder(text: string): (start: number) => Link | null {
  /** The run of non-space text last measured: [runStart, runEnd). */
  let runStart = 0;
  let runEnd = 0;
  /** A host up to here was judged already: an address starting inside it is not tried again. */
  let judgedUntil = 0;

  /** Measures the run of non-space text that `start` is in, unless it was already. */
  const measureRun = (start: number) => {
    if (start >= runStart && start < runEnd) return;
    runStart = start;
    runEnd = start;
    while (runEnd < text.length && !LINK_STOP.test(text[runEnd]!)) runEnd++;
  };

  /**
   * Where a link from `start` to the end of its run ends, without the punctuation that ends the
   * sentence and without closing brackets it did not open: `(see https://a.b/Taco_(food))`.
   */
  const trimmedEnd = (start: number): number => {
    const count: Record<string, number> = { '(': 0, '[': 0, '{': 0, ')': 0, ']': 0, '}': 0 };
    for (let i = start; i < runEnd; i++) {
      const ch = text[i]!;
      if (count[ch] !== undefined) count[ch]++;
    }
    let end = runEnd;
    for (;;) {
      const last = text[end - 1]!;
      const opener = OPENER_OF[last];
      if (LINK_TRAILING.has(last)) end--;
      else if (opener !== undefined && count[last]! > count[opener]!) {
        count[last]!--;
        end--;
      } else return end;
    }
  };

  return (start) => {
    if (start < judgedUntil || !startsWord(text, start)) return null;
    const scheme = text.slice(start, start + 8).toLowerCase();
    const www = scheme.startsWith('www.');
    let hostStart = start;
    if (scheme.startsWith('http://')) hostStart += 7;
    else if (scheme.startsWith('https://')) hostStart += 8;
    else if (!www) return null;
    if (www) {
      WWW_START.lastIndex = start;
      if (!WWW_START.test(text)) return null;
    }

    measureRun(start);
    // The host: a bracketed IPv6 address, or letters, digits, dots, hyphens and underscores.
    let hostEnd = hostStart;
    if (!www && text[hostStart] === '[') {
      hostEnd++;
      while (hostEnd < runEnd && IPV6.test(text[hostEnd]!)) hostEnd++;
      if (text[hostEnd] !== ']') return null;
      hostEnd++;
    } else {
      while (hostEnd < runEnd && isHostChar(text[hostEnd]!)) hostEnd++;
    }
    judgedUntil = hostEnd;
    if (hostEnd === hostStart) return null;
    let portEnd = hostEnd;
    if (text[hostEnd] === ':' && DIGIT.test(text[hostEnd + 1] ?? '')) {
      portEnd += 2;
      while (DIGIT.test(text[portEnd] ?? '')) portEnd++;
    }

    // After the host: a path, a query or a fragment, to the end of the run and without what
    // ends the sentence; or punctuation, which ends the address at the host (`www.a.b, or`).
    // Anything else is no part of an address: `http://bank.com@evil.com` is no link.
    const next = text[portEnd]!;
    let end = portEnd;
    if (portEnd < runEnd && (next === '/' || next === '?' || next === '#')) {
      if (!validHost(text.slice(hostStart, portEnd))) return null;
      end = trimmedEnd(start);
      if (end > portEnd) return found(start, end, www);
    } else if (portEnd < runEnd && !LINK_TRAILING.has(next) && OPENER_OF[next] === undefined) {
      return null;
    }
    // What ends the sentence may end the host too: `www.a.b.` is www.a.b.
    while (end > hostStart && LINK_TRAILING.has(text[end - 1]!)) end--;
    const host = text.slice(hostStart, end < hostEnd ? end : portEnd);
    return end > hostStart && validHost(host) ? found(start, end, www) : null;
  };

  function found(start: number, end: number, www: boolean): Link {
    const written = text.slice(start, end);
    return { written, href: www ? `https://${written}` : written };
  }
}

/** Whether a host (with its port) is one a browser opens: `new URL` reads only that much. */
function validHost(host: string): boolean {
  try {
    return new URL(`http://${host}/`).hostname !== '';
  } catch {
    return false;
  }
}
