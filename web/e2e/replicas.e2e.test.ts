import type { Page } from 'playwright-core';
import { type Cluster, sleep, startCluster } from '@taco/harness';
import { BrowserSuite, composer, feed, openRenameDialog, socketsPerReplica } from './test/suite';

/**
 * Two people in one room, each on a different api replica behind nginx (Redis between them):
 * what one does shows for the other as it does in one process: a mention, a rename, a clear and a
 * leave, each as its line in the feed.
 */

const STEP_MS = 15_000;
jest.setTimeout(120_000);

let cluster: Cluster;
const browser = new BrowserSuite(() => cluster.url, STEP_MS);
let alice: Page;
let bob: Page;
let room: string;

beforeAll(async () => {
  cluster = await startCluster({ replicas: 2 });
  await browser.launch();
  alice = await browser.newPage();
  bob = await browser.newPage();
}, 90_000);

afterAll(async () => {
  await browser.close();
  await cluster?.stop();
}, 60_000);

describe('One room over two replicas, in the browser', () => {
  it('puts the two people on different replicas', async () => {
    const suggestion = alice.waitForResponse((r) => r.url().endsWith('/api/room-name'));
    await alice.goto('/');
    ({ room_id: room } = (await (await suggestion).json()) as { room_id: string });
    await alice.waitForFunction(
      (expected) => document.querySelector<HTMLInputElement>('#roomName')?.value === expected,
      room,
    );
    await alice.getByLabel('Your Name').fill('Alice');
    await alice.getByRole('button', { name: 'Create Room' }).click();
    await alice.locator('.connection-pill-open').waitFor();

    await bob.goto(`/r/${room}`);
    const dialog = bob.getByRole('dialog');
    await dialog.getByLabel('Username').fill('Bob');
    await dialog.getByRole('button', { name: 'Continue' }).click();
    await bob.locator('.connection-pill-open').waitFor();

    // nginx sends each new socket to the replica with fewer: one each.
    let counts = await socketsPerReplica(cluster);
    for (let i = 0; i < 50 && counts.join() !== '1,1'; i++) {
      await sleep(100);
      counts = await socketsPerReplica(cluster);
    }
    expect(counts).toEqual([1, 1]);
  });

  it('shows a mention of Alice, sent through the other replica, as hers', async () => {
    await composer(bob).fill('@Alice the salsa is ready');
    await composer(bob).press('Enter');
    const item = feed(alice).getByRole('listitem').filter({ hasText: 'the salsa is ready' });
    await item.locator('.mention-me', { hasText: '@Alice' }).waitFor();
  });

  it('tells Alice that Bob is now Bobby', async () => {
    const dialog = await openRenameDialog(bob);
    await dialog.getByLabel('New display name').fill('Bobby');
    await dialog.getByRole('button', { name: 'Change name' }).click();
    await bob.getByRole('heading', { name: 'Welcome Bobby' }).waitFor();
    await feed(alice).getByText('Bob is now Bobby').waitFor();
    await alice
      .getByRole('list', { name: /Participants/ })
      .getByText('Bobby')
      .waitFor();
  });

  it('tells Bobby who cleared the history', async () => {
    await alice.getByRole('button', { name: 'Clear Room' }).click();
    await alice
      .getByRole('dialog', { name: 'Clear the room?' })
      .getByRole('button', { name: 'Clear for everyone' })
      .click();
    await feed(bob).getByText('History cleared by Alice').waitFor();
    expect(await feed(bob).locator('li.message').count()).toBe(0);
  });

  it('tells Alice when Bobby leaves', async () => {
    await bob.getByRole('button', { name: 'Room menu' }).click();
    await bob.getByRole('menuitem', { name: 'Leave room' }).click();
    await bob.getByRole('button', { name: 'Create Room' }).waitFor();
    await feed(alice).getByText('Bobby left').waitFor();
  });

  it('ran without errors in the pages', () => {
    expect(browser.unexpectedErrors()).toEqual([]);
  });
});
