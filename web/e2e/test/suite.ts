import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { type Cluster, freePorts } from '@taco/harness';
import { launchBrowser, ServerProcess } from '../support';
import { watchErrors } from './page-checks';

/** A step's bounded wait in the browser suites. */
export const STEP_MS = 10_000;
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** A context's options: a laptop by default, a phone (390×844, touch) with `phone`. */
export type ContextOptions = BrowserContextOptions & { phone?: boolean };

/** Errors any page may log while the server restarts or a socket drops: not the app's. */
const EXPECTED_ERRORS = /WebSocket connection to .* failed|Failed to load resource/;

/**
 * One browser for a suite's tests, against `origin()`: every context it opens is closed with it,
 * and every page's console errors and uncaught exceptions are kept.
 */
export class BrowserSuite {
  private browser: Browser | null = null;
  private readonly contexts: BrowserContext[] = [];
  private readonly pageErrors: string[][] = [];

  constructor(
    private readonly origin: () => string,
    private readonly stepMs = STEP_MS,
  ) {}

  async launch(): Promise<void> {
    this.browser = await launchBrowser();
  }

  async newContext({ phone = false, ...options }: ContextOptions = {}): Promise<BrowserContext> {
    if (!this.browser) throw new Error('The suite’s browser is not launched');
    const context = await this.browser.newContext({
      viewport: phone ? PHONE : DESKTOP,
      isMobile: phone,
      hasTouch: phone,
      baseURL: this.origin(),
      permissions: ['clipboard-read', 'clipboard-write'],
      ...options,
    });
    this.contexts.push(context);
    return context;
  }

  /** A page in `context`, or in a new context with these options. */
  async newPage(context: BrowserContext | ContextOptions = {}): Promise<Page> {
    const owner = 'newPage' in context ? context : await this.newContext(context);
    const page = await owner.newPage();
    page.setDefaultTimeout(this.stepMs);
    this.pageErrors.push(watchErrors(page));
    return page;
  }

  /** What the pages logged as errors, beyond failed socket connections and resource loads. */
  unexpectedErrors(): string[] {
    return this.pageErrors.flat().filter((text) => !EXPECTED_ERRORS.test(text));
  }

  async close(): Promise<void> {
    for (const context of this.contexts) await context.close().catch(() => undefined);
    await this.browser?.close();
  }
}

/**
 * The built server on a free port and a browser, started before the suite's tests and stopped
 * after them.
 */
export function serverAndBrowser(): { server: () => ServerProcess; browser: BrowserSuite } {
  let server: ServerProcess | null = null;
  const current = () => {
    if (!server) throw new Error('The suite’s server is not started');
    return server;
  };
  const browser = new BrowserSuite(() => current().url);
  beforeAll(async () => {
    const [port = 0] = await freePorts(1);
    server = new ServerProcess(port);
    await server.start();
    await browser.launch();
  });
  afterAll(async () => {
    await browser.close();
    await server?.stop();
  });
  return { server: current, browser };
}

export const feed = (page: Page) => page.getByRole('log', { name: 'Messages' });
export const composer = (page: Page) => page.getByPlaceholder('Type a message...');

/** The last feed row holding `text`, once it shows. */
export async function messageItem(page: Page, text: string, timeout = STEP_MS) {
  const item = feed(page).getByRole('listitem').filter({ hasText: text }).last();
  await item.waitFor({ timeout });
  return item;
}

/** Waits until the room greets `name` and its socket is open. */
export async function waitOnline(page: Page, name: string): Promise<void> {
  await page.getByRole('heading', { name: `Welcome ${name}` }).waitFor();
  await page.getByText('Online', { exact: true }).waitFor();
}

/** Opens the create form once the server's room-name suggestion has filled it in; returns it. */
export async function openCreateForm(page: Page): Promise<string> {
  const answer = page.waitForResponse((response) => response.url().endsWith('/api/room-name'));
  await page.goto('/');
  const { room_id } = (await (await answer).json()) as { room_id: string };
  await page.waitForFunction(
    (expected) => document.querySelector<HTMLInputElement>('#roomName')?.value === expected,
    room_id,
  );
  return room_id;
}

/** Creates a room (the suggested name unless `room` is given) as `name`; returns its name. */
export async function createRoom(page: Page, name: string, room?: string): Promise<string> {
  await openCreateForm(page);
  const roomInput = page.getByLabel('Room Name');
  if (room !== undefined) await roomInput.fill(room);
  const roomName = await roomInput.inputValue();
  await page.getByLabel('Your Name').fill(name);
  await page.getByRole('button', { name: 'Create Room' }).click();
  await page.waitForURL(`**/r/${roomName}`);
  await waitOnline(page, name);
  return roomName;
}

/** Opens `/r/{room}` and joins as `name` through the username dialog. */
export async function joinRoom(page: Page, room: string, name: string): Promise<void> {
  await page.goto(`/r/${room}`);
  const dialog = page.getByRole('dialog');
  await dialog.getByText('Please choose a username').waitFor();
  await dialog.getByLabel('Username').fill(name);
  await dialog.getByRole('button', { name: 'Continue' }).click();
  await waitOnline(page, name);
}

/** Types `text` and presses Send. */
export async function send(page: Page, text: string): Promise<void> {
  await composer(page).fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
}

/** Opens Change name… from the room menu; returns its dialog. */
export async function openRenameDialog(page: Page) {
  await page.getByRole('button', { name: 'Room menu' }).click();
  await page.getByRole('menuitem', { name: 'Change name…' }).click();
  return page.getByRole('dialog', { name: 'Change your name' });
}

/** Open sockets on each replica of `cluster`, read from its own metrics (bypassing nginx). */
export function socketsPerReplica(cluster: Cluster): Promise<number[]> {
  return Promise.all(
    cluster.replicas.map(async (replica) => {
      const text = await (await fetch(`${replica.url}/api/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith('taco_connections'));
      return Number(line?.split(' ').at(-1) ?? 'NaN');
    }),
  );
}
