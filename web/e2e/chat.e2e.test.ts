import type { Page } from 'playwright-core';
import { snap } from './test/page-checks';
import {
  createRoom,
  feed,
  joinRoom,
  messageItem,
  send,
  serverAndBrowser,
  STEP_MS,
} from './test/suite';

/** Bounded waits: generous for a reconnect (5 s ± 20 % per attempt), short otherwise. */
const RECOVERY_MS = 30_000;

const { server, browser } = serverAndBrowser();
const newPage = (options: { phone?: boolean } = {}) => browser.newPage(options);

async function expectClass(page: Page, text: string, cls: string, timeout = STEP_MS) {
  const item = await messageItem(page, text, timeout);
  expect(await item.getAttribute('class')).toContain(cls);
}

function participant(page: Page, name: string) {
  return page
    .getByRole('list', { name: /Participants/ })
    .getByRole('listitem')
    .filter({ hasText: name });
}

/**
 * Sends every socket of `page` through a pass-through proxy; the function returned cuts the
 * latest one, as a dropped network would (the page then reconnects by itself).
 */
async function cuttableSockets(page: Page): Promise<() => void> {
  const cuts: Array<() => void> = [];
  await page.routeWebSocket(/\/api\/room\/.+\/ws/, (socket) => {
    const upstream = socket.connectToServer();
    cuts.push(() => {
      void socket.close({ code: 4000, reason: 'Dropped by the test' });
      void upstream.close();
    });
  });
  return () => cuts[cuts.length - 1]!();
}

// Browser flows wait on real reconnects (seconds each): a generous, bounded time per test.
jest.setTimeout(120_000);

describe('Taco Chat in a real browser against the real server', () => {
  let alice: Page;
  let bob: Page;
  let room: string;

  it('creates a room, joins it from a second browser, and chats both ways', async () => {
    alice = await newPage();
    await alice.goto('/');
    // The form is a chunk of its own: the screenshot waits for it, not only for the header.
    await alice.getByRole('button', { name: 'Create Room' }).waitFor();
    await snap(alice, '01-create-room');
    await alice.getByRole('button', { name: 'Create Room' }).click();
    await alice.getByText('Your user name is too short').waitFor();
    await snap(alice, '02-create-room-validation');

    room = await createRoom(alice, 'Alice');
    expect(room).toMatch(/^[a-z]+-[a-z]+$/);
    await snap(alice, '03-room-empty');

    bob = await newPage();
    const socketUrls: string[] = [];
    bob.on('websocket', (socket) => socketUrls.push(socket.url()));
    await bob.goto(`/r/${room}`);
    await bob.getByRole('dialog').getByText('Please choose a username').waitFor();
    await bob.waitForTimeout(400);
    await snap(bob, '04-username-modal');
    // It cannot be dismissed: not by Escape (twice: Chromium lets a second refused one through),
    // nor by a click on the backdrop.
    await bob.keyboard.press('Escape');
    await bob.keyboard.press('Escape');
    await bob.mouse.click(5, 700);
    expect(await bob.getByRole('dialog').getByText('Please choose a username').isVisible()).toBe(
      true,
    );
    await joinRoom(bob, room, 'Bob');

    await participant(alice, 'Bob').getByRole('img', { name: 'active' }).waitFor();
    await participant(bob, 'Alice').getByRole('img', { name: 'active' }).waitFor();
    // Someone about to create a room with that name is told it is busy.
    const newcomer = await newPage();
    await newcomer.goto('/');
    await newcomer.getByLabel('Room Name').fill(room);
    await newcomer.getByText(`${room} already has 2 people in it`).waitFor();
    await snap(newcomer, '04b-create-busy-room');
    await newcomer.close();
    // The socket opens with a single-use ticket: no URL holds the long-lived token.
    expect(socketUrls).toHaveLength(1);
    expect(socketUrls[0]).toMatch(/\/api\/room\/[a-z-]+\/ws\?ticket=[A-Za-z0-9_-]{32}$/);

    await alice.getByPlaceholder('Type a message...').pressSequentially('Hel');
    await bob.getByText('Alice is typing').waitFor();
    await participant(bob, 'Alice').getByRole('img', { name: 'typing' }).waitFor();
    await snap(bob, '05-typing');
    await alice.getByPlaceholder('Type a message...').fill('');
    await bob.getByText('Alice is typing').waitFor({ state: 'detached' });

    await send(alice, 'Hello Bob! 🌮');
    await expectClass(alice, 'Hello Bob! 🌮', 'message-own');
    await expectClass(bob, 'Hello Bob! 🌮', 'message-other');
    await send(bob, 'Hi Alice, look: https://example.com/tacos');
    await expectClass(alice, 'Hi Alice', 'message-other');
    await expectClass(bob, 'Hi Alice', 'message-own');
    const link = alice.getByRole('link', { name: 'https://example.com/tacos' });
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    await send(alice, 'Looks delicious. See you at noon?');
    await expectClass(bob, 'See you at noon?', 'message-other');
    await snap(alice, '06-chat-alice');
    await snap(bob, '07-chat-bob');
    expect(await feed(bob).locator('li.message').count()).toBe(3);
  });

  it('shares the link through the clipboard with a toast', async () => {
    await alice.getByRole('button', { name: 'Share' }).click();
    await alice.getByText('Your link has been copied to your clipboard.').waitFor();
    await alice.waitForTimeout(400);
    await snap(alice, '08-share-toast');
    const copied = await alice.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(`${server().url}/r/${room}`);
    await alice
      .getByText('Your link has been copied to your clipboard.')
      .waitFor({ state: 'hidden', timeout: STEP_MS });
  });

  it('keeps identity and history across a reload without asking again', async () => {
    await alice.reload();
    await alice.getByRole('heading', { name: 'Welcome Alice' }).waitFor();
    await alice.getByText('Online', { exact: true }).waitFor();
    expect(await alice.getByRole('dialog').count()).toBe(0);
    await expectClass(alice, 'Hello Bob! 🌮', 'message-own');
    await expectClass(alice, 'Hi Alice', 'message-other');
    expect(await feed(alice).locator('li.message').count()).toBe(3);
    const stored = await alice.evaluate(() => window.localStorage.getItem('persist:root'));
    expect(Object.keys(JSON.parse(stored ?? '{}') as object).sort()).toEqual([
      '_persist',
      'roomAuth',
    ]);
  });

  it('clears the room for everyone', async () => {
    const clear = bob.getByRole('button', { name: 'Clear Room' });
    expect(await clear.isEnabled()).toBe(true);
    await clear.click();
    // It asks first: the history goes for everyone.
    await bob
      .getByRole('dialog', { name: 'Clear the room?' })
      .getByRole('button', { name: 'Clear for everyone' })
      .click();
    await feed(alice).locator('li.message').first().waitFor({ state: 'detached' });
    expect(await feed(bob).locator('li.message').count()).toBe(0);
    expect(await alice.getByRole('button', { name: 'Clear Room' }).isDisabled()).toBe(true);
    await snap(alice, '09-cleared');
  });

  it('shows it is reconnecting while the server is down and recovers after a restart', async () => {
    // Alice has the room open in a second tab too: both must come back as Alice, unprompted,
    // however their requests for new credentials interleave (the one that asks second would be
    // told that its own name is taken; it takes over the first one's credentials instead).
    const aliceTab = await browser.newPage(alice.context());
    await aliceTab.goto(`/r/${room}`);
    await aliceTab.getByText('Online', { exact: true }).waitFor({ timeout: RECOVERY_MS });
    await send(alice, 'Before the restart');
    await messageItem(bob, 'Before the restart');
    await server().stop();
    await alice.getByText('Connection lost. Reconnecting…').waitFor();
    await snap(alice, '10-reconnecting');
    await server().start();
    // The embedded server signs tokens with a new secret after a restart: the client gets 4401,
    // asks for new credentials with the name it knows, and reconnects without a prompt.
    for (const page of [alice, aliceTab, bob]) {
      await page.getByText('Online', { exact: true }).waitFor({ timeout: RECOVERY_MS });
      expect(await page.getByRole('dialog').count()).toBe(0);
    }
    await send(aliceTab, 'From the other tab');
    await expectClass(alice, 'From the other tab', 'message-own', RECOVERY_MS);
    await aliceTab.close();
    await send(bob, 'Back online');
    await expectClass(alice, 'Back online', 'message-other', RECOVERY_MS);
    await send(alice, 'Welcome back');
    await expectClass(bob, 'Welcome back', 'message-other');
    expect(await feed(alice).getByRole('listitem').filter({ hasText: 'Back online' }).count()).toBe(
      1,
    );
    await snap(bob, '11-recovered');
  });

  it('re-authenticates after a 4401, and asks for a new name when the old one is taken', async () => {
    const carolContext = await browser.newContext();
    const carol = await browser.newPage(carolContext);
    await joinRoom(carol, room, 'Carol');
    // Carol's saved token goes bad and her saved name becomes one that is in use: on reload the
    // socket is refused (4401), the silent credential request gets 409, and the modal explains.
    await carol.evaluate(() => {
      const saved = JSON.parse(window.localStorage.getItem('persist:root') ?? '{}') as Record<
        string,
        string
      >;
      const roomAuth = JSON.parse(saved.roomAuth ?? '{}') as Record<
        string,
        { senderName: string; token: string }
      >;
      for (const record of Object.values(roomAuth)) {
        record.senderName = 'Bob';
        record.token = 'not-a-valid-token';
      }
      saved.roomAuth = JSON.stringify(roomAuth);
      window.localStorage.setItem('persist:root', JSON.stringify(saved));
    });
    await carol.close();
    const again = await browser.newPage(carolContext);
    await again.goto(`/r/${room}`);
    const dialog = again.getByRole('dialog');
    await dialog
      .getByRole('alert')
      .filter({ hasText: 'That name is already taken in this room' })
      .waitFor();
    await again.waitForTimeout(400);
    await snap(again, '12-reauth-name-taken');
    await dialog.getByLabel('Username').fill('Carol');
    await dialog.getByRole('button', { name: 'Continue' }).click();
    await again.getByRole('heading', { name: 'Welcome Carol' }).waitFor();
    await again.getByText('Online', { exact: true }).waitFor();
    await participant(alice, 'Carol').getByRole('img', { name: 'active' }).waitFor();
  });

  it('gets every message sent while it was disconnected, exactly once', async () => {
    const erin = await newPage();
    const cut = await cuttableSockets(erin);
    await joinRoom(erin, room, 'Erin');
    await send(alice, 'Before the drop');
    await messageItem(erin, 'Before the drop');
    cut();
    await erin.getByText('Connection lost. Reconnecting…').waitFor();
    await participant(alice, 'Erin').getByRole('img', { name: 'inactive' }).waitFor();
    await send(alice, 'While you were away 1');
    await send(bob, 'While you were away 2');
    await messageItem(alice, 'While you were away 2');
    await erin.getByText('Online', { exact: true }).waitFor({ timeout: RECOVERY_MS });
    for (const text of ['Before the drop', 'While you were away 1', 'While you were away 2']) {
      await messageItem(erin, text);
      expect(await feed(erin).getByRole('listitem').filter({ hasText: text }).count()).toBe(1);
    }
    const texts = await feed(erin).getByRole('listitem').allTextContents();
    const order = ['Before the drop', 'While you were away 1', 'While you were away 2'].map(
      (text) => texts.findIndex((t) => t.includes(text)),
    );
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('learns, once back, of a clear and a departure that happened while it was away', async () => {
    const frank = await newPage();
    const cut = await cuttableSockets(frank);
    const gina = await newPage();
    await joinRoom(frank, room, 'Frank');
    await joinRoom(gina, room, 'Gina');
    await participant(frank, 'Gina').getByRole('img', { name: 'active' }).waitFor();
    await send(alice, 'Soon to be cleared');
    await messageItem(frank, 'Soon to be cleared');
    // Frank's reconnects fail (their ticket calls with them) until the outage is over.
    const ticket = `**/api/room/${room}/ticket`;
    await frank.route(ticket, (route) => route.abort());
    cut();
    await frank.getByText('Connection lost. Reconnecting…').waitFor();
    await gina.close();
    await participant(alice, 'Gina').getByRole('img', { name: 'inactive' }).waitFor();
    await alice.getByRole('button', { name: 'Clear Room' }).click();
    await alice
      .getByRole('dialog', { name: 'Clear the room?' })
      .getByRole('button', { name: 'Clear for everyone' })
      .click();
    await feed(alice).locator('li.message').first().waitFor({ state: 'detached' });
    await frank.unroute(ticket);
    await frank.getByText('Online', { exact: true }).waitFor({ timeout: RECOVERY_MS });
    await feed(frank).getByText('Soon to be cleared').waitFor({ state: 'detached' });
    await participant(frank, 'Gina').getByRole('img', { name: 'inactive' }).waitFor();
    await participant(frank, 'Alice').getByRole('img', { name: 'active' }).waitFor();
    await frank.close();
  });

  it('works on a phone-sized screen', async () => {
    const phone = await newPage({ phone: true });
    await phone.goto('/');
    await phone.getByLabel('Your Name').waitFor();
    await snap(phone, '13-phone-create');
    await joinRoom(phone, room, 'Dana');
    await send(alice, 'Hi Dana, welcome to the room!');
    await messageItem(phone, 'welcome to the room');
    await send(phone, 'Thanks! Typing from my phone.');
    await messageItem(alice, 'Typing from my phone');
    await snap(phone, '14-phone-room');
    await phone.getByRole('button', { name: /Show participants/ }).click();
    await participant(phone, 'Alice').waitFor();
    await phone.waitForTimeout(400);
    await snap(phone, '15-phone-sidebar');
  });

  it('shows the My Account placeholder', async () => {
    await alice.goto('/a');
    await alice.getByRole('heading', { name: 'My Account' }).waitFor();
    await snap(alice, '16-account');
  });

  it('ran without errors in the pages (including Content-Security-Policy reports)', () => {
    const relevant = browser.unexpectedErrors();
    expect(relevant.filter((text) => /Content Security Policy|Uncaught/i.test(text))).toEqual([]);
  });
});
