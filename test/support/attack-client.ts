import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { sendJson, sendUpload, type StreamedUpload, type UploadAnswer } from './streamed-multipart';

/**
 * The attacker's client on a thread of its own: its socket writes (hundreds
 * of MB) cost the service's event loop nothing, as they would not from
 * another machine, so the harness measures the service alone. For the same
 * reason it runs at the lowest CPU priority: on two cores, a client making
 * 4.5 GB of upload bodies would otherwise take a core from the service and
 * its read-model server, which an attacker on another machine cannot.
 */
type Call =
  | { id: number; kind: 'upload'; upload: StreamedUpload }
  | {
      id: number;
      kind: 'json';
      baseUrl: string;
      path: string;
      key: string;
      body: Uint8Array;
      method: string;
    };

export class AttackClient {
  private readonly worker = new Worker(join(__dirname, 'attack-client.js'));
  private next = 0;
  private readonly pending = new Map<number, (answer: unknown) => void>();

  constructor() {
    this.worker.on('message', ({ id, answer }: { id: number; answer: unknown }) => {
      this.pending.get(id)?.(answer);
      this.pending.delete(id);
    });
  }

  upload(upload: StreamedUpload): Promise<UploadAnswer> {
    return this.call({ id: this.next++, kind: 'upload', upload }) as Promise<UploadAnswer>;
  }

  json(
    baseUrl: string,
    path: string,
    key: string,
    body: Buffer,
    method = 'PUT',
  ): Promise<{ status: number; body: unknown }> {
    return this.call({ id: this.next++, kind: 'json', baseUrl, path, key, body, method }) as Promise<{
      status: number;
      body: unknown;
    }>;
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }

  private call(call: Call): Promise<unknown> {
    return new Promise((resolve) => {
      this.pending.set(call.id, resolve);
      this.worker.postMessage(call);
    });
  }
}

if (!isMainThread && parentPort) {
  try {
    setPriority(19); // this thread's own nice value on Linux
  } catch {
    // Refused here: the client then competes as it is.
  }
  const port = parentPort;
  port.on('message', (call: Call) => {
    const answering =
      call.kind === 'upload'
        ? sendUpload(call.upload)
        : sendJson(call.baseUrl, call.path, call.key, Buffer.from(call.body), call.method);
    void answering.then(
      (answer) => port.postMessage({ id: call.id, answer }),
      (error: Error) =>
        port.postMessage({ id: call.id, answer: { status: -1, body: { message: error.message } } }),
    );
  });
}
