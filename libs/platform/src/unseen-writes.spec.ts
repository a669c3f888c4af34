import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { firstValueFrom, from, throwError } from 'rxjs';
import { ApiError } from './api-error';
import { inRequest } from './request-context';
import { answerOnlyWhatWasSeen, hasUnseenWrite, noteUnseenWrite } from './unseen-writes';

const turn = () => new Promise((resolve) => setImmediate(resolve));
const statusOf = (error: unknown) => (error instanceof ApiError ? error.getStatus() : undefined);

describe('writes the read models do not show yet', () => {
  it('given one request notes an unseen write, then only that request has one, across its awaits', async () => {
    const seen: string[] = [];
    const serve = (id: string, unseen: boolean) =>
      inRequest(id, async () => {
        await turn();
        if (unseen) noteUnseenWrite();
        await turn();
        seen.push(`${id}:${hasUnseenWrite()}`);
      });
    await Promise.all([serve('a', true), serve('b', false)]);
    assert.deepEqual(seen.sort(), ['a:true', 'b:false']);
    assert.equal(hasUnseenWrite(), false);
  });

  it('given an unseen write, then the answer and any error become 503 saying the write is recorded', async () => {
    await inRequest('r', async () => {
      noteUnseenWrite();
      for (const answer of [from([{ ok: true }]), throwError(() => new ApiError(404, 'Artifact not found'))]) {
        const error = await firstValueFrom(answer.pipe(answerOnlyWhatWasSeen())).then(
          () => undefined,
          (e: unknown) => e,
        );
        assert.equal(statusOf(error), 503);
        assert.match((error as ApiError).errors!.readYourWrites, /The write is recorded/);
        assert.equal((error as ApiError).headers['Retry-After'], '5');
      }
    });
  });

  it('given no unseen write, then the answer and errors pass unchanged', async () => {
    await inRequest('r', async () => {
      assert.deepEqual(await firstValueFrom(from([{ ok: true }]).pipe(answerOnlyWhatWasSeen())), { ok: true });
      const error = await firstValueFrom(
        throwError(() => new ApiError(404, 'Artifact not found')).pipe(answerOnlyWhatWasSeen()),
      ).catch((e: unknown) => e);
      assert.equal(statusOf(error), 404);
    });
  });
});
