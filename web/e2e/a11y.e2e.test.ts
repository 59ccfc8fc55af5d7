import type { Page } from 'playwright-core';
import { axeFindings, COMMITTED_SCREENSHOTS, snap } from './test/page-checks';
import {
  createRoom,
  feed,
  joinRoom,
  openCreateForm,
  send as sendOnly,
  serverAndBrowser,
} from './test/suite';

/**
 * Accessibility of every screen in both colour modes: axe-core finds no serious or critical
 * problem (contrast, names, roles, list structure…) on the create form, a room with messages, the
 * username prompt, the account page and the phone layout. Also the dark-mode toggle itself, and
 * the screenshots of both modes committed under web/e2e/screenshots/.
 */

type Mode = 'light' | 'dark';

jest.setTimeout(180_000);

const { browser } = serverAndBrowser();

function newPage(mode: Mode, phone = false): Promise<Page> {
  return browser.newPage({
    phone,
    colorScheme: mode,
    reducedMotion: 'reduce',
    // axe is injected as an inline script, which the app's CSP refuses.
    bypassCSP: true,
  });
}

/** Expects no serious or critical axe finding on `page`, naming the screen when there are. */
async function expectAccessible(page: Page, screen: string): Promise<void> {
  const findings = await axeFindings(page);
  expect({ screen, findings }).toEqual({ screen, findings: [] });
}

async function send(page: Page, text: string): Promise<void> {
  await sendOnly(page, text);
  await feed(page).getByText(text).last().waitFor();
}

async function expectMode(page: Page, mode: Mode): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.dataset.bsTheme)).toBe(mode);
}

describe.each<Mode>(['light', 'dark'])('Every screen in the %s colour mode', (mode) => {
  const room = `a11y-${mode}`;

  it('the create form, empty and with its validation errors', async () => {
    const page = await newPage(mode);
    await openCreateForm(page);
    await expectMode(page, mode);
    await expectAccessible(page, 'create form');
    await page.getByLabel('Room Name').fill('a b');
    await page.getByRole('button', { name: 'Create Room' }).click();
    await page.getByText('Your user name is too short').waitFor();
    await expectAccessible(page, 'create form with errors');
    await snap(page, `${mode}-create-form`, COMMITTED_SCREENSHOTS);
  });

  it('a room with messages from two people, a link in each bubble, and someone typing', async () => {
    const alice = await newPage(mode);
    await createRoom(alice, 'Alice', room);
    await expectAccessible(alice, 'empty room');
    const bob = await newPage(mode);
    await joinRoom(bob, room, 'Bob');
    await send(alice, 'Hello Bob! The menu: https://example.com/tacos');
    await send(bob, 'Hi Alice, see https://example.org/salsa for the salsa');
    await send(alice, 'See you at noon?');
    await alice.getByRole('log', { name: 'Messages' }).getByText('salsa').last().waitFor();
    // Typing is announced at most once per 2 s (the spec's throttle), and Bob just typed a message.
    await bob.waitForTimeout(2_100);
    await bob.getByPlaceholder('Type a message...').pressSequentially('On my');
    await alice.getByText('Bob is typing').waitFor();
    await expectAccessible(alice, 'room with messages');
    await snap(alice, `${mode}-room`, COMMITTED_SCREENSHOTS);
  });

  it('the username prompt of a room', async () => {
    const page = await newPage(mode);
    await page.goto(`/r/${room}`);
    await page.getByRole('dialog').getByText('Please choose a username').waitFor();
    // The modal's fade-in (300 ms) ends before axe reads colours.
    await page.waitForTimeout(400);
    await expectAccessible(page, 'username prompt');
    await snap(page, `${mode}-username-prompt`, COMMITTED_SCREENSHOTS);
  });

  it('the account page and an unknown page', async () => {
    const page = await newPage(mode);
    await page.goto('/a');
    await page.getByRole('heading', { name: 'My Account' }).waitFor();
    await expectAccessible(page, 'account page');
    await page.goto('/no/such/page');
    await page
      .getByRole('link', { name: /create|new room|home/i })
      .first()
      .waitFor();
    await expectAccessible(page, 'unknown page');
  });

  it('a phone: the create form, the room and its participants drawer', async () => {
    const phone = await newPage(mode, true);
    await openCreateForm(phone);
    await expectAccessible(phone, 'phone create form');
    await joinRoom(phone, room, 'Dana');
    await phone.getByRole('log', { name: 'Messages' }).getByText('See you at noon?').waitFor();
    await expectAccessible(phone, 'phone room');
    await snap(phone, `${mode}-phone-room`, COMMITTED_SCREENSHOTS);
    await phone.getByRole('button', { name: /Show participants/ }).click();
    await phone.getByRole('dialog').getByText('Alice').waitFor();
    await phone.waitForTimeout(400);
    await expectAccessible(phone, 'phone participants drawer');
  });
});

describe('The dark-mode toggle', () => {
  it('starts from the system, switches, and keeps the choice across a reload', async () => {
    const page = await newPage('light');
    await openCreateForm(page);
    await expectMode(page, 'light');
    const toggle = page.getByRole('button', { name: 'Dark mode' });
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');
    await toggle.click();
    await expectMode(page, 'dark');
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).not.toBe('rgb(255, 255, 255)');

    // The mode is on <html> before any script of the app runs: no light flash on reload.
    await page.route('**/assets/*.js', (route) => route.abort());
    await page.reload();
    await expectMode(page, 'dark');
    await page.unroute('**/assets/*.js');
    await page.reload();
    await page.getByRole('button', { name: 'Dark mode' }).waitFor();
    await expectMode(page, 'dark');
    expect(await page.evaluate(() => localStorage.getItem('taco:theme'))).toBe('dark');

    await page.getByRole('button', { name: 'Dark mode' }).click();
    await expectMode(page, 'light');
  });

  it('uses the brand colour for primary buttons and links, and keeps own messages blue', async () => {
    const page = await newPage('light');
    await openCreateForm(page);
    const primary = await page
      .getByRole('button', { name: 'Create Room' })
      .evaluate((button) => getComputedStyle(button).backgroundColor);
    expect(primary).toBe('rgb(194, 65, 12)');
    await createRoom(page, 'Erin', 'a11y-brand');
    await send(page, 'Mine, in blue');
    // The message is shown at once, then replaced by the server's copy: read the colour of the
    // bubble on screen, found again if the one read was just replaced (detached: no style).
    let own = '';
    for (let attempt = 0; attempt < 20 && own === ''; attempt++) {
      if (attempt > 0) await page.waitForTimeout(100);
      own = await page
        .getByRole('log', { name: 'Messages' })
        .getByText('Mine, in blue')
        .evaluate((text) => getComputedStyle(text.closest('.bubble') ?? text).backgroundColor);
    }
    expect(own).toBe('rgb(13, 110, 253)');
  });

  it('ran without errors in the pages', () => {
    const relevant = browser.unexpectedErrors();
    expect(relevant.filter((text) => /Content Security Policy|Uncaught/i.test(text))).toEqual([]);
  });
});
