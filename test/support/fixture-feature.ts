import { Body, Controller, Get, HttpCode, Module, Param, Put, Res, Inject } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import type { Response } from 'express';
import { Decider, DomainEvent } from '#des/kernel';
import { ApiError, CommandExecutor, READ_STORE, Requires } from '#des/platform';
import type { ReadStore } from '#des/read-store';

/**
 * A minimal feature used only by the platform's e2e tests: a decider, a
 * command path through CommandExecutor, and a read of the real `stream_stats`
 * read model. It proves the pipeline without depending on any product feature.
 */
type NoteEvent = DomainEvent<'note_written', { text: string }>;
interface NoteState {
  text: string | null;
}
interface WriteNote {
  text: string;
}

export const noteDecider: Decider<WriteNote, NoteState, NoteEvent> = {
  initialState: { text: null },
  evolve: (_state, event) => ({ text: event.data.text }),
  decide: (command, state) =>
    state.text === command.text ? [] : [{ type: 'note_written', data: { text: command.text } }],
};

export class NoteDto {
  @ApiProperty({ maxLength: 50 })
  @IsString()
  @MaxLength(50)
  text!: string;
}

@Controller('fixture-notes')
class NotesController {
  constructor(
    private readonly executor: CommandExecutor,
    @Inject(READ_STORE) private readonly reads: ReadStore,
  ) {}

  @Put(':org/:id')
  @Requires('member')
  async write(
    @Param('org') org: string,
    @Param('id') id: string,
    @Body() body: NoteDto,
    @Res({ passthrough: true }) res: Response,
  ) {
    const done = await this.executor.execute(
      `note-${org}/${id}`,
      noteDecider,
      { text: body.text },
      {
        org,
        actor: { kind: 'user', name: 'tester' },
      },
    );
    res.status(done.position === null ? 200 : 201);
    return { text: done.state.text, position: done.position };
  }

  @Get(':org/:id')
  @Requires('reader')
  async read(@Param('org') org: string, @Param('id') id: string) {
    const stats = await this.reads.collection('stream_stats').findOne({ _id: `note-${org}/${id}` });
    if (!stats) throw new ApiError(404, 'Note not found');
    return { events: stats.events, last_type: stats.last_type, revision: stats.revision };
  }

  @Get('boom/:secret/now')
  @Requires('reader')
  @HttpCode(200)
  boom(@Param('secret') secret: string) {
    throw new Error(`internal detail ${secret} at /srv/des/secret.ts:42`);
  }
}

@Module({ controllers: [NotesController] })
export class FixtureFeatureModule {}
