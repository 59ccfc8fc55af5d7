import { join } from 'node:path';
import { NAME_TAKEN_MESSAGE } from '@taco/protocol';
import type { Page } from 'playwright-core';
import { snap as saveSnap } from './test/page-checks';
import {
  composer,
  createRoom,
  feed,
  joinRoom,
  messageItem,
  openRenameDialog,
  serverAndBrowser,
  STEP_MS,
  waitOnline,
} from './test/suite';

/**
 * The room's own features in a real browser, desktop (1280×800) and phone (390×844) side by side:
 * Clear Room's confirmation, the phone header, participants by presence, the multi-line composer
 * and @mentions, the notification bell, a burst over the rate limit, a typist who pauses, renames
 * and leaving, and the home page's recent rooms. Screenshots of these states are kept in
 * web/e2e/screenshots/.
 */

const SCREENSHOTS = join(__dirname, 'screenshots');

const { server, browser } = serverAndBrowser();

/** Browser notifications the page showed, recorded instead of shown. */
interface ShownNotification {
  title: string;
  body: string;
  tag: string;
}

async function newPage(phone = false): Promise<Page> {
  const context = await browser.newContext({ phone });
  // Notifications are granted and recorded, so a test can read what would have shown.
  await context.addInitScript(() => {
    const shown: ShownNotification[] = [];
    class RecordedNotification {
      static permission = 'granted';
      static requestPermission = () => Promise.resolve('granted');
      constructor(title: string, options: { body?: string; tag?: string } = {}) {
        shown.push({ title, body: options.body ?? '', tag: options.tag ?? '' });
      }
    }
    Object.assign(window, { Notification: RecordedNotification, shownNotifications: shown });
  });
  return browser.newPage(context);
}

const snap = (page: Page, name: string) => saveSnap(page, name, SCREENSHOTS);

function participants(page: Page) {
  return page.getByRole('list', { name: /Participants/ });
}

async function participantNames(page: Page): Promise<string[]> {
  const names = await participants(page).locator('.participant-name').allInnerTexts();
  return names.map((name) => name.replace(/ \(you\)$/, '').trim());
}

async function notifications(page: Page): Promise<ShownNotification[]> {
  return page.evaluate(
    () => (window as unknown as { shownNotifications: ShownNotification[] }).shownNotifications,
  );
}

/** Types a message and sends it with Enter (desktop). */
async function sendWithEnter(page: Page, text: string): Promise<void> {
  await composer(page).fill(text);
  await composer(page).press('Enter');
}

jest.setTimeout(120_000);

describe('A room on a laptop and a phone', () => {
  let alice: Page;
  let bob: Page;
  let room: string;

  it('shows the room name and Share in the phone header, and shares from there', async () => {
    alice = await newPage();
    room = await createRoom(alice, 'Alice');
    bob = await newPage(true);
    await joinRoom(bob, room, 'Bob');
    const header = bob.locator('.chat-header');
    await header.getByText(`# ${room}`).waitFor();
    await header.getByRole('button', { name: 'Share' }).click();
    await bob.getByText('Your link has been copied to your clipboard.').waitFor();
    expect(await bob.evaluate(() => navigator.clipboard.readText())).toBe(
      `${server().url}/r/${room}`,
    );
    await snap(bob, 'room-01-phone-header-share');
    // On a laptop the sidebar has them; the header does not repeat them.
    expect(await alice.locator('.chat-header').getByRole('button', { name: 'Share' }).count()).toBe(
      0,
    );
  });

  it('lists who is here first, then who left, each alphabetical, dots kept', async () => {
    const carol = await newPage();
    await joinRoom(carol, room, 'Carol');
    const aaron = await newPage();
    await joinRoom(aaron, room, 'aaron');
    await participants(alice).getByText('Carol').waitFor();
    await carol.close();
    await participants(alice)
      .getByRole('listitem')
      .filter({ hasText: 'Carol' })
      .getByRole('img', { name: 'inactive' })
      .waitFor();
    expect(await participantNames(alice)).toEqual(['aaron', 'Alice', 'Bob', 'Carol']);
    await aaron.close();
    await participants(alice)
      .getByRole('listitem')
      .filter({ hasText: 'aaron' })
      .getByRole('img', { name: 'inactive' })
      .waitFor();
    expect(await participantNames(alice)).toEqual(['Alice', 'Bob', 'aaron', 'Carol']);
    await snap(alice, 'room-02-participants-by-presence');
  });

  it('writes several lines: Shift+Enter on a laptop, Enter on a phone, with dir=auto', async () => {
    const input = composer(alice);
    expect(await input.getAttribute('dir')).toBe('auto');
    await input.fill('');
    await input.pressSequentially('Line one');
    await input.press('Shift+Enter');
    await input.pressSequentially('Line two');
    await input.press('Shift+Enter');
    await input.pressSequentially('שלום עולם');
    const grown = await input.evaluate((el) => el.getBoundingClientRect().height);
    expect(grown).toBeGreaterThan(60);
    await snap(alice, 'room-03-multiline-draft');
    await input.press('Enter');
    const item = await messageItem(bob, 'Line two');
    expect(await item.innerText()).toContain('Line one\nLine two');

    const phoneInput = composer(bob);
    await phoneInput.pressSequentially('From the phone');
    await phoneInput.press('Enter');
    await phoneInput.pressSequentially('second line');
    expect(await phoneInput.inputValue()).toBe('From the phone\nsecond line');
    await bob.getByRole('button', { name: 'Send' }).click();
    await messageItem(alice, 'second line');
    expect(await phoneInput.inputValue()).toBe('');
  });

  it('completes @mentions and notifies by the bell: all, mentions only, off', async () => {
    await composer(bob).pressSequentially('Hey @A');
    const list = bob.getByRole('listbox', { name: 'Mention' });
    await list.waitFor();
    expect(await list.getByRole('option').allInnerTexts()).toEqual(['@Alice']);
    await snap(bob, 'room-04-mention-completion');
    await composer(alice).click();
    await composer(alice).pressSequentially('@');
    await alice.getByRole('listbox', { name: 'Mention' }).waitFor();
    await snap(alice, 'room-04b-mention-completion-desktop');
    await composer(alice).press('Escape');
    await composer(alice).fill('');
    await composer(bob).press('Enter');
    expect(await composer(bob).inputValue()).toBe('Hey @Alice ');
    await composer(bob).pressSequentially('look at this');
    await bob.getByRole('button', { name: 'Send' }).click();
    await messageItem(alice, 'look at this');

    // All messages (the default): both of Bob's messages so far notified, with the room's tag.
    const shown = await notifications(alice);
    expect(shown.map((n) => n.title)).toEqual(['Bob', 'Bob']);
    expect(new Set(shown.map((n) => n.tag))).toEqual(new Set([`taco-chat:${room}`]));

    await alice.getByRole('button', { name: 'Notifications: All messages' }).click();
    await snap(alice, 'room-05-bell-menu');
    await alice.getByRole('menuitemradio', { name: 'Mentions only' }).click();
    await alice.getByRole('button', { name: 'Notifications: Mentions only' }).waitFor();
    await alice.reload();
    await alice.getByRole('button', { name: 'Notifications: Mentions only' }).waitFor();
    await alice.locator('.connection-pill-open').waitFor();
    await composer(bob).fill('nothing for you');
    await bob.getByRole('button', { name: 'Send' }).click();
    await messageItem(alice, 'nothing for you');
    await composer(bob).fill('@alice are you there?');
    await bob.getByRole('button', { name: 'Send' }).click();
    await messageItem(alice, 'are you there?');
    expect((await notifications(alice)).map((n) => n.body)).toEqual(['@alice are you there?']);
  });

  it('clears a typist who stopped with text still in the box', async () => {
    // At a typing pace: typing=true goes out at most once per 2 s, and Bob sent a message just now.
    await composer(bob).pressSequentially('I am thinking', { delay: 250 });
    await alice.getByText('Bob is typing').waitFor();
    // Bob stops typing, text still in the box: the indicator goes within 3 s (bounded wait).
    await alice.getByText('Bob is typing').waitFor({ state: 'detached', timeout: 5000 });
    expect(await composer(bob).inputValue()).toBe('I am thinking');
    await composer(bob).fill('');
  });

  it('paces a fast burst: every message arrives once, in the order typed, one notice at most', async () => {
    const bodies = Array.from({ length: 14 }, (_, i) => `burst ${i + 1}`);
    for (const body of bodies) await sendWithEnter(alice, body);
    expect(await alice.locator('.notice-toasts .toast').count()).toBeLessThanOrEqual(1);
    await messageItem(bob, 'burst 14');
    const seen = (await feed(bob).getByRole('listitem').allInnerTexts()).filter((text) =>
      /burst \d+/.test(text),
    );
    expect(seen.map((text) => /burst \d+/.exec(text)?.[0])).toEqual(bodies);
    await alice.getByText('Sending…').first().waitFor({ state: 'detached', timeout: STEP_MS });
    expect(await feed(alice).getByText('Not sent').count()).toBe(0);
    await snap(alice, 'room-06-burst-in-order');
  });

  it('changes a name from the phone: everyone sees "Bob is now Bobby"', async () => {
    const dialog = await openRenameDialog(bob);
    await dialog.getByLabel('New display name').fill('Alice');
    await dialog.getByRole('button', { name: 'Change name' }).click();
    await dialog.getByText('That name is already taken in this room').waitFor();
    await dialog.getByLabel('New display name').fill('Bobby');
    await snap(bob, 'room-07-rename-dialog');
    await dialog.getByRole('button', { name: 'Change name' }).click();
    await bob.getByRole('heading', { name: 'Welcome Bobby' }).waitFor();
    // The same socket goes on, now as Bobby: still online, no reconnect.
    await bob.locator('.connection-pill-open').waitFor();
    await feed(alice).getByText('Bob is now Bobby').waitFor();
    await feed(bob).getByText('Bob is now Bobby').waitFor();
    await participants(alice).getByText('Bobby').waitFor();
    expect(await participantNames(alice)).not.toContain('Bob');
    await snap(alice, 'room-08-renamed-desktop');
    await snap(bob, 'room-08b-renamed-phone');
    await composer(bob).fill('new name, same me');
    await bob.getByRole('button', { name: 'Send' }).click();
    const item = await messageItem(alice, 'new name, same me');
    expect(await item.innerText()).toContain('Bobby');
    // A reload keeps the new name without asking.
    await bob.reload();
    await bob.getByRole('heading', { name: 'Welcome Bobby' }).waitFor();
    expect(await bob.getByRole('dialog').count()).toBe(0);
  });

  it("follows a rename in the browser's other tab: one participant under one name", async () => {
    const tab = await bob.context().newPage();
    await tab.goto(`/r/${room}`);
    await tab.getByRole('heading', { name: 'Welcome Bobby' }).waitFor();
    await tab.locator('.connection-pill-open').waitFor();
    // A tab in the background gets no animation frames: the dialog's entrance would wait.
    await bob.bringToFront();
    const dialog = await openRenameDialog(bob);
    await dialog.getByLabel('New display name').fill('Bobbie');
    await dialog.getByRole('button', { name: 'Change name' }).click();
    await bob.getByRole('heading', { name: 'Welcome Bobbie' }).waitFor();
    // The other tab takes the new name on its open socket (no reconnect), as the room sees.
    await tab.getByRole('heading', { name: 'Welcome Bobbie' }).waitFor();
    await tab.locator('.connection-pill-open').waitFor();
    await participants(alice).getByText('Bobby', { exact: true }).waitFor({ state: 'detached' });
    expect(await participantNames(alice)).toContain('Bobbie');
    await composer(tab).fill('from the other tab');
    await tab.getByRole('button', { name: 'Send' }).click();
    expect(await (await messageItem(alice, 'from the other tab')).innerText()).toContain('Bobbie');
    for (const page of [alice, tab]) {
      expect(await feed(page).getByText('Bobby is now Bobbie').count()).toBe(1);
      expect(await feed(page).getByText('Bobby left').count()).toBe(0);
    }
    await tab.close();
  });

  it('asks before clearing the room for everyone', async () => {
    await alice.getByRole('button', { name: 'Clear Room' }).click();
    const dialog = alice.getByRole('dialog', { name: 'Clear the room?' });
    await dialog.getByText('for everyone in the room').waitFor();
    await alice.waitForTimeout(400);
    await snap(alice, 'room-09-clear-confirmation');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await feed(bob).getByRole('listitem').filter({ hasText: 'burst 14' }).count()).toBe(1);
    await alice.getByRole('button', { name: 'Clear Room' }).click();
    await dialog.getByRole('button', { name: 'Clear for everyone' }).click();
    await feed(bob)
      .getByRole('listitem')
      .filter({ hasText: 'burst 14' })
      .waitFor({ state: 'detached' });
    // Clear Room is disabled now (nothing to clear): the focus goes to the message input.
    await dialog.waitFor({ state: 'detached' });
    await composer(alice).and(alice.locator(':focus')).waitFor();
  });

  it('lists the rooms you were in on the home page; leaving forgets the room', async () => {
    const home = await alice.context().newPage();
    await home.goto('/');
    const recent = home.getByRole('region', { name: 'Rooms you were in' });
    await recent.getByRole('link', { name: room }).waitFor();
    await snap(home, 'room-10-home-recent-rooms');
    await home.close();

    await alice.getByRole('button', { name: 'Room menu' }).click();
    await alice.getByRole('menuitem', { name: 'Leave room' }).click();
    await alice.waitForURL(`${server().url}/`);
    await alice.getByRole('button', { name: 'Create Room' }).waitFor();
    expect(await alice.getByRole('region', { name: 'Rooms you were in' }).count()).toBe(0);
    // On the phone the participants are in the drawer.
    await bob.getByRole('button', { name: /Show participants/ }).click();
    await participants(bob)
      .getByRole('listitem')
      .filter({ hasText: 'Alice' })
      .getByRole('img', { name: 'inactive' })
      .waitFor();
    // Back through the link, the room asks for a name again.
    await alice.goto(`/r/${room}`);
    await alice.getByRole('dialog').getByText('Please choose a username').waitFor();
  });

  it('keeps a name to the one who holds it: who comes back with an older token picks another', async () => {
    const room = `holder-${Date.now().toString(36)}`;
    // Alice joins, then leaves the room; her token stays in the browser.
    const first = await newPage();
    await joinRoom(first, room, 'Alice');
    await first.goto('/');
    const count = async () => {
      const answer = await fetch(`${server().url}/api/room/${room}`);
      return ((await answer.json()) as { participants: number }).participants;
    };
    for (let i = 0; i < 50 && (await count()) > 0; i++) await first.waitForTimeout(100);
    // Someone else takes "Alice" meanwhile.
    const second = await newPage();
    await joinRoom(second, room, 'Alice');
    // The first comes back through the link: the name is someone else's now.
    await first.goto(`/r/${room}`);
    const dialog = first.getByRole('dialog');
    await dialog.getByRole('alert').filter({ hasText: NAME_TAKEN_MESSAGE }).waitFor();
    await snap(first, 'room-11-name-taken-on-return');
    expect(await participantNames(second)).toEqual(['Alice']);
    await dialog.getByLabel('Username').fill('Alice B');
    await dialog.getByRole('button', { name: 'Continue' }).click();
    await waitOnline(first, 'Alice B');
    await participants(second).getByText('Alice B').waitFor();
    expect((await participantNames(second)).sort()).toEqual(['Alice', 'Alice B']);
  });

  it('reported no errors in the pages but the refused name (409) and closed sockets', () => {
    expect(browser.unexpectedErrors()).toEqual([]);
  });
});
