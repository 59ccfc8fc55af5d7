import type { Browser, BrowserContext, Page } from 'playwright-core';
import { freePorts } from '../../infra/cluster/wait';
import {
  axeFindings,
  COMMITTED_SCREENSHOTS,
  launchBrowser,
  ServerProcess,
  snap,
  watchErrors,
} from './support';

/**
 * Accessibility of every screen in both colour modes: axe-core finds no serious or critical
 * problem (contrast, names, roles, list structure…) on the create form, a room with messages, the
 * username prompt, the account page and the phone layout. Also the dark-mode toggle itself, and
 * the screenshots of both modes committed under web/e2e/screenshots/.
 */

const STEP_MS = 10_000;
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
type Mode = 'light' | 'dark';

jest.setTimeout(180_000);

let server: ServerProcess;
let browser: Browser;
const contexts: BrowserContext[] = [];
const pageErrors: string[][] = [];

beforeAll(async () => {
  const [port = 0] = await freePorts(1);
  server = new ServerProcess(port);
  await server.start();
  browser = await launchBrowser();
});

afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => undefined);
  await browser?.close();
  await server?.stop();
});

async function newPage(mode: Mode, viewport = DESKTOP, mobile = false): Promise<Page> {
  const context = await browser.newContext({
    viewport,
    isMobile: mobile,
    hasTouch: mobile,
    baseURL: server.origin,
    colorScheme: mode,
    reducedMotion: 'reduce',
    // axe is injected as an inline script, which the app's CSP refuses.
    bypassCSP: true,
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_MS);
  pageErrors.push(watchErrors(page));
  return page;
}

/** Expects no serious or critical axe finding on `page`, naming the screen when there are. */
async function expectAccessible(page: Page, screen: string): Promise<void> {
  const findings = await axeFindings(page);
  expect({ screen, findings }).toEqual({ screen, findings: [] });
}

async function openCreateForm(page: Page): Promise<void> {
  const suggestion = page.waitForResponse((response) => response.url().endsWith('/api/room-name'));
  await page.goto('/');
  await suggestion;
  await page.getByLabel('Your Name').waitFor();
}

async function createRoom(page: Page, room: string, name: string): Promise<void> {
  await openCreateForm(page);
  await page.getByLabel('Room Name').fill(room);
  await page.getByLabel('Your Name').fill(name);
  await page.getByRole('button', { name: 'Create Room' }).click();
  await page.waitForURL(`**/r/${room}`);
  await page.getByText('Online', { exact: true }).waitFor();
}

async function joinRoom(page: Page, room: string, name: string): Promise<void> {
  await page.goto(`/r/${room}`);
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Username').fill(name);
  await dialog.getByRole('button', { name: 'Continue' }).click();
  await page.getByText('Online', { exact: true }).waitFor();
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByPlaceholder('Type a message...').fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByRole('log', { name: 'Messages' }).getByText(text).last().waitFor();
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
    await createRoom(alice, room, 'Alice');
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
    const phone = await newPage(mode, PHONE, true);
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
    await createRoom(page, 'a11y-brand', 'Erin');
    await send(page, 'Mine, in blue');
    const own = await page
      .getByRole('log', { name: 'Messages' })
      .getByText('Mine, in blue')
      .evaluate((text) => getComputedStyle(text.closest('.bubble') ?? text).backgroundColor);
    expect(own).toBe('rgb(13, 110, 253)');
  });

  it('ran without errors in the pages', () => {
    const relevant = pageErrors
      .flat()
      .filter((text) => !/WebSocket connection to .* failed|Failed to load resource/.test(text));
    expect(relevant.filter((text) => /Content Security Policy|Uncaught/i.test(text))).toEqual([]);
  });
});
