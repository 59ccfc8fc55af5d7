import type { Page } from 'playwright-core';
import {
  composer,
  feed,
  joinRoom,
  messageItem,
  send,
  serverAndBrowser,
  waitOnline,
} from './test/suite';

/**
 * Room ids and names that are properties of `Object.prototype` are valid: a room `__proto__`
 * works, and people named `constructor` or `hasOwnProperty` see each other there like anyone.
 */

const { browser } = serverAndBrowser();

jest.setTimeout(120_000);

const participants = (page: Page) => page.getByRole('list', { name: /Participants/ });

async function participantNames(page: Page): Promise<string[]> {
  return (await participants(page).locator('.participant-name').allInnerTexts()).sort();
}

describe('The room __proto__', () => {
  it('shows constructor and hasOwnProperty to each other, with their messages, mentions and typing', async () => {
    const room = '__proto__';
    const own = await browser.newPage();
    const ctor = await browser.newPage();
    await joinRoom(own, room, 'hasOwnProperty');
    await joinRoom(ctor, room, 'constructor');

    await feed(own).getByText('constructor joined').waitFor();
    for (const page of [own, ctor]) {
      await participants(page).getByText('constructor', { exact: true }).waitFor();
      await page.getByRole('heading', { name: 'Participants · 2 online' }).waitFor();
      expect(await participantNames(page)).toEqual(['constructor', 'hasOwnProperty']);
      await page.getByText(`# ${room}`).first().waitFor();
    }

    await composer(ctor).fill('hi @hasOwn');
    await own.getByText('constructor is typing').waitFor();
    await send(ctor, 'hi @hasOwnProperty');
    const seen = await messageItem(own, 'hi @hasOwnProperty');
    await seen.locator('.mention-me').waitFor();
    expect(await seen.locator('.message-sender').innerText()).toBe('constructor');

    // After a reload the room and the name are still this browser's, and everyone is there.
    await own.reload();
    await waitOnline(own, 'hasOwnProperty');
    await participants(own).getByText('constructor', { exact: true }).waitFor();
    await messageItem(own, 'hi @hasOwnProperty');

    await ctor.close();
    await feed(own).getByText('constructor left').waitFor();
    await own.getByRole('heading', { name: 'Participants · 1 online' }).waitFor();
    expect(browser.unexpectedErrors()).toEqual([]);
  });
});
