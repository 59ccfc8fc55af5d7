import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import WebSocket from 'ws';
import { waitFor } from '@taco/harness';
import { snap } from './test/page-checks';
import {
  type ContextOptions,
  feed,
  joinRoom,
  serverAndBrowser,
  STEP_MS,
  waitOnline,
} from './test/suite';

/** The feed's screenshots are kept with the code (they show the states this suite covers). */
const SHOTS = join(__dirname, 'screenshots');
const { server, browser } = serverAndBrowser();
const sockets: WebSocket[] = [];
const room = `feed-${Date.now().toString(36)}`;

const newContext = (options: ContextOptions = {}) =>
  browser.newContext({ locale: 'en-US', ...options });
const newPage = (context: BrowserContext) => browser.newPage(context);
const shot = (page: Page, name: string) => snap(page, name, SHOTS);
const rows = (page: Page) => feed(page).getByRole('listitem');
const messages = (page: Page) => feed(page).locator('li.message');

/** Sends from the browser and waits for the message to show (as `shown`, once rendered). */
async function send(page: Page, text: string, shown = text): Promise<void> {
  await page.getByPlaceholder('Type a message...').fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
  await messages(page).filter({ hasText: shown }).last().waitFor();
}

/** Sends a message from a participant without a browser (its body may have several lines). */
function say(socket: WebSocket, body: string): void {
  socket.send(JSON.stringify({ type: 1, body }));
}

/** A participant without a browser: credentials over HTTP, then a plain WebSocket. */
async function cliParticipant(name: string): Promise<WebSocket> {
  const response = await fetch(`${server().url}/api/room/${room}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sender_id: name }),
  });
  const { token } = (await response.json()) as { token: string };
  const socket = new WebSocket(
    `ws://127.0.0.1:${server().port}/api/room/${room}/ws?token=${token}`,
  );
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return socket;
}

async function closeSocket(socket: WebSocket): Promise<void> {
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.close();
  await closed;
}

/** Whether the feed shows its newest row's bottom (the spec: it scrolls to the bottom). */
function atBottom(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const element = document.querySelector('.feed')!;
    return element.scrollHeight - element.scrollTop - element.clientHeight < 2;
  });
}

/**
 * WCAG contrast of an element's text against what is behind it (translucent backgrounds
 * composited up to the first opaque one).
 */
function contrast(page: Page, selector: string): Promise<number> {
  return page.evaluate((css) => {
    const parse = (value: string) => {
      const [r = 0, g = 0, b = 0, a = 1] = (value.match(/[\d.]+/g) ?? []).map(Number);
      return { r, g, b, a: value.startsWith('rgba') ? a : 1 };
    };
    const element = Array.from(document.querySelectorAll<HTMLElement>(css)).at(-1)!;
    const layers: ReturnType<typeof parse>[] = [];
    for (let node: HTMLElement | null = element; node; node = node.parentElement) {
      const layer = parse(getComputedStyle(node).backgroundColor);
      if (layer.a > 0) layers.push(layer);
      if (layer.a >= 1) break;
    }
    let back = { r: 255, g: 255, b: 255 };
    for (const layer of layers.reverse()) {
      back = {
        r: layer.r * layer.a + back.r * (1 - layer.a),
        g: layer.g * layer.a + back.g * (1 - layer.a),
        b: layer.b * layer.a + back.b * (1 - layer.a),
      };
    }
    const text = parse(getComputedStyle(element).color);
    const luminance = ({ r, g, b }: { r: number; g: number; b: number }) => {
      const channel = (c: number) => {
        const s = c / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    };
    const [light, dark] = [luminance(text), luminance(back)].sort((a, b) => b - a);
    return (light! + 0.05) / (dark! + 0.05);
  }, selector);
}

jest.setTimeout(120_000);

afterAll(() => {
  for (const socket of sockets) socket.terminate();
});

const MARKDOWN = [
  '**Taco night** is _on_, *bring* salsa: `npm start`',
  '> what time?',
  'See www.example.com/tacos or https://example.com/menu. @Alice can you bring plates?',
  '```sh',
  'curl -s https://example.com/menu | grep "al pastor"',
  '```',
].join('\n');
const CODE = 'curl -s https://example.com/menu | grep "al pastor"';

describe('The message feed in a real browser', () => {
  let alice: Page;
  let bob: Page;
  let aliceContext: BrowserContext;
  let cook: WebSocket;

  it('says who joined, renders Markdown and highlights a mention of the reader', async () => {
    aliceContext = await newContext();
    alice = await newPage(aliceContext);
    await joinRoom(alice, room, 'Alice');
    bob = await newPage(await newContext());
    await joinRoom(bob, room, 'Bob');
    await rows(alice).filter({ hasText: 'Bob joined' }).waitFor();
    // Bob's own join roster is not news to him.
    expect(await rows(bob).filter({ hasText: 'joined' }).count()).toBe(0);

    cook = await cliParticipant('Cook');
    await rows(alice).filter({ hasText: 'Cook joined' }).waitFor();
    say(cook, MARKDOWN);
    const message = messages(alice).filter({ hasText: 'Taco night' });
    await message.waitFor();
    expect(await message.locator('strong').textContent()).toBe('Taco night');
    expect(await message.locator('em').allTextContents()).toEqual(['on', 'bring']);
    expect(await message.locator('code.md-code').textContent()).toBe('npm start');
    expect(await message.locator('blockquote').textContent()).toBe('what time?');
    const www = message.getByRole('link', { name: 'www.example.com/tacos' });
    expect(await www.getAttribute('href')).toBe('https://www.example.com/tacos');
    expect(await www.getAttribute('target')).toBe('_blank');
    expect(await www.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await message.getByRole('link').count()).toBe(2);
    expect(await message.locator('.mention-me').textContent()).toBe('@Alice');
    expect(await message.getAttribute('class')).toContain('message-mentions-me');
    expect(
      await message.locator('pre').evaluate((pre) => getComputedStyle(pre).fontFamily),
    ).toMatch(/mono/i);

    await message.getByRole('button', { name: 'Copy' }).click();
    await message.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await alice.evaluate(() => navigator.clipboard.readText())).toBe(CODE);

    // Own messages stay blue, with the same Markdown in white.
    await send(alice, 'On it, @Bob: `plates.md` at www.example.com/plates', 'plates.md');
    const own = messages(alice).filter({ hasText: 'plates.md' });
    expect(await own.getAttribute('class')).toContain('message-own');
    expect(await own.locator('.mention').textContent()).toBe('@Bob');
    await messages(bob).filter({ hasText: 'plates.md' }).locator('.mention-me').waitFor();
    expect(await contrast(alice, '.message-own .mention')).toBeGreaterThanOrEqual(4.5);
    expect(await contrast(alice, '.message-own .md-code')).toBeGreaterThanOrEqual(4.5);
    await shot(alice, 'feed-markdown-1280');
    await shot(bob, 'feed-mentioned-1280');
  });

  it('never turns a message into markup or a script link', async () => {
    await send(
      bob,
      '<img src=x onerror="document.title=1"> [x](javascript:alert(1)) javascript:alert(2) data:text/html,hi',
    );
    const message = messages(alice).filter({ hasText: '<img src=x' });
    await message.waitFor();
    expect(await message.locator('img, script').count()).toBe(0);
    expect(await message.getByRole('link').count()).toBe(0);
    expect(await alice.title()).not.toBe('1');
  });

  it('groups messages, shows locale times, keeps line breaks and right-to-left text', async () => {
    say(cook, 'First line\nSecond line');
    say(cook, 'שלום לכולם, מה שלומכם?');
    const multi = messages(alice).filter({ hasText: 'First line' });
    await multi.waitFor();
    expect(await multi.locator('.md-text').innerText()).toBe('First line\nSecond line');
    const rtl = messages(alice).filter({ hasText: 'שלום' });
    await rtl.waitFor();
    expect(await rtl.getAttribute('class')).toContain('message-continued');
    expect(await rtl.locator('.bubble').evaluate((b) => b.matches(':dir(rtl)'))).toBe(true);
    expect(await multi.locator('.bubble').evaluate((b) => b.matches(':dir(ltr)'))).toBe(true);
    const firstOfGroup = messages(alice).filter({ hasText: 'First line' });
    const time = (await firstOfGroup.locator('.message-time').textContent()) ?? '';
    expect(time).toMatch(/^(?:[1-9]|1[0-2]):[0-5]\d\s[AP]M$/);
    expect(await rows(alice).first().textContent()).toBe('Today');
    await shot(alice, 'feed-grouped-rtl-1280');
  });

  it('collapses a long message behind Show more, and still shows the bottom of it', async () => {
    const long = Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of a long recipe`).join('\n');
    say(cook, long);
    const message = messages(alice).filter({ hasText: 'Line 1 of a long recipe' });
    const more = message.getByRole('button', { name: 'Show more' });
    await more.waitFor();
    await waitFor('the feed at the bottom', () => atBottom(alice), { timeoutMs: STEP_MS });
    const clamped = await message.locator('.bubble-body').evaluate((b) => b.clientHeight);
    expect(clamped).toBeLessThan(400);
    await shot(alice, 'feed-long-collapsed-1280');
    await more.click();
    await message.getByRole('button', { name: 'Show less' }).waitFor();
    expect(await message.locator('.bubble-body').evaluate((b) => b.clientHeight)).toBeGreaterThan(
      clamped * 2,
    );
    await shot(alice, 'feed-long-expanded-1280');
    await message.getByRole('button', { name: 'Show less' }).click();
    await more.waitFor();
  });

  it('keeps list semantics and readable contrast in the feed', async () => {
    const broken = await alice.evaluate(
      () =>
        Array.from(document.querySelectorAll('li')).filter(
          (li) =>
            !['OL', 'UL'].includes(li.parentElement?.tagName ?? '') ||
            li.parentElement?.hasAttribute('role'),
        ).length,
    );
    expect(broken).toBe(0);
    expect(await contrast(alice, '.message-other .bubble a')).toBeGreaterThanOrEqual(4.5);
    expect(await contrast(alice, '.message-other .mention-me')).toBeGreaterThanOrEqual(4.5);
    expect(await contrast(alice, '.feed-line')).toBeGreaterThanOrEqual(4.5);
    expect(await contrast(alice, '.feed-day')).toBeGreaterThanOrEqual(4.5);
    expect(await contrast(alice, '.message-time')).toBeGreaterThanOrEqual(4.5);
    expect(await contrast(alice, '.md-copy')).toBeGreaterThanOrEqual(4.5);
  });

  it('marks where Alice left off, after a reload and in a new tab', async () => {
    await alice.goto('/a');
    await alice.getByRole('heading', { name: 'My Account' }).waitFor();
    await send(bob, 'While you were away');
    await send(bob, 'And one more');
    await alice.goto(`/r/${room}`);
    await waitOnline(alice, 'Alice');
    const texts = async (page: Page) => {
      await messages(page).filter({ hasText: 'And one more' }).waitFor();
      return rows(page).allTextContents();
    };
    let seen = await texts(alice);
    let divider = seen.indexOf('New messages');
    expect(divider).toBeGreaterThan(0);
    expect(seen[divider + 1]).toContain('While you were away');
    await shot(alice, 'feed-unread-1280');

    // Alice closes the tab; what is said meanwhile is new in the next tab she opens.
    await alice.close();
    await send(bob, 'Said while no tab was open');
    alice = await newPage(aliceContext);
    await alice.goto(`/r/${room}`);
    await waitOnline(alice, 'Alice');
    await messages(alice).filter({ hasText: 'Said while no tab was open' }).waitFor();
    seen = await rows(alice).allTextContents();
    divider = seen.indexOf('New messages');
    expect(seen[divider + 1]).toContain('Said while no tab was open');
  });

  it('collapses a run of joins and leaves, and says who cleared the history', async () => {
    const names = ['Ana Lee', 'Beto', 'Cyd', 'Dee'];
    const crowd: WebSocket[] = [];
    for (const name of names) crowd.push(await cliParticipant(name));
    await rows(alice).filter({ hasText: 'Ana Lee, Beto, Cyd and 1 other joined' }).waitFor();
    await send(bob, 'Hi @Ana Lee and @cyd!');
    const mentions = messages(alice).filter({ hasText: 'Hi @Ana Lee' }).locator('.mention');
    expect(await mentions.allTextContents()).toEqual(['@Ana Lee', '@cyd']);
    for (const socket of crowd.slice(1)) await closeSocket(socket);
    // Three leaves are not a crowd: one line each.
    await rows(alice).filter({ hasText: 'Dee left' }).waitFor();
    expect((await rows(alice).allTextContents()).slice(-3)).toEqual([
      'Beto left',
      'Cyd left',
      'Dee left',
    ]);
    await shot(alice, 'feed-lines-1280');

    crowd[0]!.send(JSON.stringify({ type: 4 }));
    for (const page of [alice, bob]) {
      await rows(page).filter({ hasText: 'History cleared by Ana Lee' }).waitFor();
      await waitFor('messages cleared', async () => (await messages(page).count()) === 0, {
        timeoutMs: STEP_MS,
      });
    }
    await shot(bob, 'feed-cleared-1280');
  });

  it('shows earlier days under Yesterday', async () => {
    const context = await newContext();
    const tomorrow = await newPage(context);
    await send(bob, 'Sent today, read tomorrow');
    await tomorrow.clock.setFixedTime(new Date(Date.now() + 24 * 3600 * 1000));
    await joinRoom(tomorrow, room, 'Erin');
    await messages(tomorrow).filter({ hasText: 'read tomorrow' }).waitFor();
    expect(await rows(tomorrow).first().textContent()).toBe('Yesterday');
    await shot(tomorrow, 'feed-yesterday-1280');
  });

  it('reads well on a phone', async () => {
    const phone = await newPage(await newContext({ phone: true }));
    await joinRoom(phone, room, 'Dana');
    say(cook, MARKDOWN.replace('@Alice', '@Dana'));
    say(cook, Array.from({ length: 30 }, (_, i) => `Step ${i + 1}`).join('\n'));
    const long = messages(phone).filter({ hasText: 'Step 1' });
    await long.getByRole('button', { name: 'Show more' }).waitFor();
    await waitFor('the phone feed at the bottom', () => atBottom(phone), { timeoutMs: STEP_MS });
    await shot(phone, 'feed-phone-390');
    await phone.locator('.feed').evaluate((feed) => (feed.scrollTop = 0));
    await shot(phone, 'feed-phone-top-390');
  });

  it('ran without errors in the pages', () => {
    const relevant = browser.unexpectedErrors();
    expect(relevant.filter((text) => /Content Security Policy|Uncaught/i.test(text))).toEqual([]);
  });
});
