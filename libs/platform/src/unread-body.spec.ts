import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import type { Request, Response } from 'express';
import { closeUnread } from './unread-body';

/** A socket as Node's HTTP server leaves it: writable, its handle reading. */
function socket() {
  const s = Object.assign(new EventEmitter(), {
    writable: true,
    ended: false,
    paused: false,
    destroyed: false,
    handleReading: true,
    end() {
      s.ended = true;
    },
    pause() {
      s.paused = true;
    },
    destroy() {
      s.destroyed = true;
      s.emit('close');
    },
    _handle: {
      readStop() {
        s.handleReading = false;
        return 0;
      },
    },
  });
  return s;
}

describe('closeUnread: a refused request whose body is unread', () => {
  it('is answered with Connection: close, then half-closed and no longer read, and closed when its client goes', () => {
    const headers: Record<string, string> = {};
    const s = socket();
    const res = { setHeader: (k: string, v: string) => void (headers[k] = v) } as unknown as Response;
    closeUnread({ socket: s } as unknown as Request, res);
    assert.equal(headers.Connection, 'close');
    // What Node calls once the answer is written, for a connection that is not kept alive.
    (s as unknown as { destroySoon(): void }).destroySoon();
    assert.equal(s.ended, true, 'half-closed after the answer');
    assert.equal(s.handleReading, false, 'the rest of the body is not read');
    assert.equal(s.destroyed, false, 'not reset while the client may still be reading the answer');
    s.destroy();
    assert.equal(s.destroyed, true);
  });
});
