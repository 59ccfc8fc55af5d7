/** The load-client processes of one workload run, and typed request/response over their IPC. */
import { resolve } from 'node:path';
import { IpcProcess } from '@taco/harness';
import type { ClientMessage, ParentMessage } from './ipc';

const CLIENT_SCRIPT = resolve(__dirname, 'load-client.ts');

export type Reply<T extends ClientMessage['type']> = Extract<ClientMessage, { type: T }>;

/** The load-client processes of one run, answering the same requests. */
export class ClientPool {
  readonly clients: IpcProcess<ParentMessage, ClientMessage>[];

  constructor(count: number) {
    this.clients = Array.from(
      { length: count },
      (_, index) => new IpcProcess(CLIENT_SCRIPT, `load client ${index}`),
    );
  }

  /** Resolves once every client process is up. */
  async ready(): Promise<void> {
    await Promise.all(this.clients.map((client) => client.ready));
  }

  /** Sends one message per client (built from its index) and waits for every answer. */
  all<T extends ClientMessage['type']>(
    build: (index: number) => ParentMessage,
    answer: T,
  ): Promise<Reply<T>[]> {
    return Promise.all(this.clients.map((client, index) => client.request(build(index), answer)));
  }

  close(): Promise<void[]> {
    return Promise.all(this.clients.map((client) => client.close()));
  }
}
