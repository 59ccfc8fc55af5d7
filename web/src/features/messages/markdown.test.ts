import fc from 'fast-check';
import { type Block, type Inline, mentionMatcher, parseInline, parseMessage } from './markdown';

const matcher = mentionMatcher({ names: ['Bob', 'Ann', 'Ann Lee'], me: 'Alice' });
const inline = (text: string) => parseInline(text, matcher);
const blocks = (text: string) => parseMessage(text, matcher);
const t = (text: string): Inline => ({ type: 'text', text });

describe('inline Markdown', () => {
  it('reads bold, both italics and inline code', () => {
    expect(inline('a **b** *c* _d_ `e`')).toEqual([
      t('a '),
      { type: 'strong', children: [t('b')] },
      t(' '),
      { type: 'em', children: [t('c')] },
      t(' '),
      { type: 'em', children: [t('d')] },
      t(' '),
      { type: 'code', text: 'e' },
    ]);
  });

  it('nests emphasis, and reads ***x*** as bold italic', () => {
    expect(inline('**bold _and italic_**')).toEqual([
      { type: 'strong', children: [t('bold '), { type: 'em', children: [t('and italic')] }] },
    ]);
    expect(inline('***x***')).toEqual([
      { type: 'strong', children: [{ type: 'em', children: [t('x')] }] },
    ]);
  });

  it('leaves what is not emphasis alone: snake_case, 2 * 3 * 4, unclosed and escaped markers', () => {
    expect(inline('snake_case_name')).toEqual([t('snake_case_name')]);
    expect(inline('2 * 3 * 4')).toEqual([t('2 * 3 * 4')]);
    expect(inline('**not closed')).toEqual([t('**not closed')]);
    expect(inline('\\*literal\\* and `')).toEqual([t('*literal* and `')]);
    expect(inline('** spaced **')).toEqual([t('** spaced **')]);
    expect(inline('call __init__ in __proto__')).toEqual([t('call __init__ in __proto__')]);
    expect(inline('__not bold__ but _this_')).toEqual([
      t('__not bold__ but '),
      { type: 'em', children: [t('this')] },
    ]);
  });

  it('keeps code literal: no emphasis, links or mentions inside', () => {
    expect(inline('`**x** https://a.b @Bob`')).toEqual([
      { type: 'code', text: '**x** https://a.b @Bob' },
    ]);
    expect(inline('``a ` b``')).toEqual([{ type: 'code', text: 'a ` b' }]);
  });

  it('links http(s) and www. addresses, without the punctuation that ends a sentence', () => {
    expect(inline('see https://example.com/a?b=1. and www.example.org/x, ok')).toEqual([
      t('see '),
      { type: 'link', href: 'https://example.com/a?b=1', text: 'https://example.com/a?b=1' },
      t('. and '),
      { type: 'link', href: 'https://www.example.org/x', text: 'www.example.org/x' },
      t(', ok'),
    ]);
    expect(inline('(https://en.wikipedia.org/wiki/Taco_(food))')).toEqual([
      t('('),
      {
        type: 'link',
        href: 'https://en.wikipedia.org/wiki/Taco_(food)',
        text: 'https://en.wikipedia.org/wiki/Taco_(food)',
      },
      t(')'),
    ]);
    expect(inline('**https://example.com**')).toEqual([
      {
        type: 'strong',
        children: [{ type: 'link', href: 'https://example.com', text: 'https://example.com' }],
      },
    ]);
  });

  it('never links another scheme or markup', () => {
    for (const text of [
      'javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      '[click](javascript:alert(1))',
      '<a href="javascript:alert(1)">x</a>',
      'vbscript:msgbox',
      'http://',
      'wwwx.example.com',
    ]) {
      expect(inline(text)).toEqual([t(text)]);
    }
    expect(inline('xhttps://example.com')).toEqual([t('xhttps://example.com')]);
  });

  it('links hosts with a port or an IPv6 address, up to punctuation, and never one behind a user name', () => {
    const link = (text: string) => ({ type: 'link', href: text, text });
    expect(inline('http://localhost:8080.')).toEqual([link('http://localhost:8080'), t('.')]);
    expect(inline('http://[::1]:3000/x')).toEqual([link('http://[::1]:3000/x')]);
    // A user name before @ makes "bank.com" look like the host; the link would open evil.com.
    expect(inline('http://bank.com@evil.com/x')).toEqual([t('http://bank.com@evil.com/x')]);
    expect(inline('http://1.2.3.999/ http://a|b')).toEqual([t('http://1.2.3.999/ http://a|b')]);
    // Punctuation right after a host ends the address there.
    expect(inline('www.a.b,www.c.d')).toEqual([
      { type: 'link', href: 'https://www.a.b', text: 'www.a.b' },
      t(','),
      { type: 'link', href: 'https://www.c.d', text: 'www.c.d' },
    ]);
  });

  it('reads code before emphasis, and links and mentions inside _emphasis_', () => {
    expect(inline('*a `b*` c*')).toEqual([
      { type: 'em', children: [t('a '), { type: 'code', text: 'b*' }, t(' c')] },
    ]);
    expect(inline('_@Bob_ _https://a.b_')).toEqual([
      { type: 'em', children: [{ type: 'mention', name: 'Bob', text: '@Bob', self: false }] },
      t(' '),
      { type: 'em', children: [{ type: 'link', href: 'https://a.b', text: 'https://a.b' }] },
    ]);
    expect(inline('@Bob_x x_https://a.b')).toEqual([t('@Bob_x x_https://a.b')]);
  });

  it('reads mentions of known names, the longest first, and tells the reader apart', () => {
    expect(inline('hi @ann lee and @Ann, @alice! @Bobby @Zed mail@Bob')).toEqual([
      t('hi '),
      { type: 'mention', name: 'Ann Lee', text: '@ann lee', self: false },
      t(' and '),
      { type: 'mention', name: 'Ann', text: '@Ann', self: false },
      t(', '),
      { type: 'mention', name: 'Alice', text: '@alice', self: true },
      t('! @Bobby @Zed mail@Bob'),
    ]);
  });
});

describe('block Markdown', () => {
  it('keeps line breaks and drops blank lines around the message', () => {
    expect(blocks('\none\n\ntwo\n')).toEqual<Block[]>([
      { type: 'text', lines: [[t('one')], [], [t('two')]] },
    ]);
  });

  it('reads fenced code blocks with a language, keeping their text exactly', () => {
    expect(blocks('look:\n```ts\nconst a = **1**;\n  <b>x</b>\n```\ndone')).toEqual<Block[]>([
      { type: 'text', lines: [[t('look:')]] },
      { type: 'code', language: 'ts', text: 'const a = **1**;\n  <b>x</b>' },
      { type: 'text', lines: [[t('done')]] },
    ]);
    expect(blocks('```one line```')).toEqual<Block[]>([
      { type: 'code', language: '', text: 'one line' },
    ]);
    expect(blocks('```\nnot closed')).toEqual<Block[]>([
      { type: 'text', lines: [[t('```')], [t('not closed')]] },
    ]);
  });

  it('reads > quotes, with Markdown inside, up to a bounded depth', () => {
    expect(blocks('> quoted **text**\n>more\nreply')).toEqual<Block[]>([
      {
        type: 'quote',
        blocks: [
          {
            type: 'text',
            lines: [[t('quoted '), { type: 'strong', children: [t('text')] }], [t('more')]],
          },
        ],
      },
      { type: 'text', lines: [[t('reply')]] },
    ]);
    const deep = blocks('>>>>>>>> x');
    expect(JSON.stringify(deep)).toContain('> x');
  });

  it('reads a long, hostile body as text without throwing', () => {
    const body = '*_`'.repeat(1300) + '\n' + '> '.repeat(500) + '\n' + '**a'.repeat(1300);
    const parsed = blocks(body);
    expect(parsed.map((block) => block.type)).toEqual(['text', 'quote', 'text']);
  });
});

/** What a reader sees of a parsed message: its text, code blocks' languages included. */
function visibleText(blocks: readonly Block[]): string {
  const inline = (nodes: readonly Inline[]): string =>
    nodes
      .map((node) =>
        node.type === 'strong' || node.type === 'em' ? inline(node.children) : node.text,
      )
      .join('');
  return blocks
    .map((block) => {
      if (block.type === 'text') return block.lines.map(inline).join('\n');
      if (block.type === 'code') return `${block.language}\n${block.text}`;
      return visibleText(block.blocks);
    })
    .join('\n');
}

/** Every inline node list of a parsed message, nested ones included. */
function* inlineLists(blocks: readonly Block[]): Generator<readonly Inline[]> {
  function* walk(nodes: readonly Inline[]): Generator<readonly Inline[]> {
    yield nodes;
    for (const node of nodes) {
      if (node.type === 'strong' || node.type === 'em') yield* walk(node.children);
    }
  }
  for (const block of blocks) {
    if (block.type === 'text') for (const line of block.lines) yield* walk(line);
    else if (block.type === 'quote') yield* inlineLists(block.blocks);
  }
}

/** Markup and white space: what Markdown may take away from what is shown. */
const MARKUP = /[*_`\\>\s]/gu;

/** Bodies made of Markdown's pieces, links, mentions and any other characters. */
const hostileBody = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '*', '**', '***', '_', '__', '`', '``', '```', '\\', '>', '> ', '@', '@Ann', '@ann lee',
        '@Bob', 'http://', 'https://a.b/', 'http://[::1]:80/', 'www.', 'www.a.b', '(', ')', '[',
        ']', '{', '}', '.', ',', '?', '#', ':', ' ', 'a', '\n', '\r\n', '\n```ts\n', 'Σ', 'İ',
      ), // prettier-ignore
      fc.string({ maxLength: 3 }),
      fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code)),
    ),
    { maxLength: 60 },
  )
  .map((pieces) => pieces.join(''));

describe('Markdown on any input', () => {
  it('never throws, and shows every character that is not markup', () => {
    fc.assert(
      fc.property(hostileBody, (body) => {
        const parsed = blocks(body);
        expect(visibleText(parsed).replace(MARKUP, '')).toBe(body.replace(MARKUP, ''));
      }),
      { seed: 20_240_601, numRuns: 2000 },
    );
  });

  it('links only http(s) addresses, and never leaves empty or split text', () => {
    fc.assert(
      fc.property(hostileBody, (body) => {
        for (const nodes of inlineLists(blocks(body))) {
          nodes.forEach((node, index) => {
            if (node.type === 'text') {
              expect(node.text).not.toBe('');
              expect(nodes[index + 1]?.type).not.toBe('text');
            }
            if (node.type === 'link') expect(new URL(node.href).protocol).toMatch(/^https?:$/);
          });
        }
      }),
      { seed: 20_240_602, numRuns: 2000 },
    );
  });

  it('keeps text without markup exactly as written', () => {
    const plain = fc
      .string({ unit: fc.constantFrom(...'abcHhWw019 .,;:!?()[]{}\'"/-#~+=&%$^|<>'), minLength: 1 })
      .filter((line) => line.trim() !== '');
    fc.assert(
      fc.property(plain, (line) => {
        const parsed = inline(line);
        expect(parsed.map((node) => ('text' in node ? node.text : '')).join('')).toBe(line);
      }),
      { seed: 20_240_603, numRuns: 2000 },
    );
  });
});
