import { DeliverPolicy, type JsMsg, type OrderedConsumerOptions } from '@nats-io/jetstream';
import {
  OLDEST_REPLAYABLE_COMMAND_FORMAT,
  Streams,
  commandFormatOf,
  type CommandEnvelope,
} from '@app/contracts';
import type { NatsClient } from '@app/messaging';
import { matches, type RecordedCommand, type Selection } from './selection.js';

/** Header a replayed copy carries: the stream sequence of the command it repeats. */
export const REPLAY_OF_HEADER = 'x-replay-of';

export interface CommandLogState {
  stream: string;
  /** Commands recorded (including replayed copies). */
  messages: number;
  firstSeq: number;
  lastSeq: number;
}

/** The command, if this build can replay its format; else the replay stops here, saying which command and why. */
function replayable(command: RecordedCommand): RecordedCommand {
  const format = commandFormatOf(command.envelope);
  if (format >= OLDEST_REPLAYABLE_COMMAND_FORMAT) return command;
  throw new UnsupportedHistoryError(
    `command ${command.seq} (${command.subject}, ${command.envelope.commandId}) was recorded in command format ` +
      `${format}; this build replays format ${OLDEST_REPLAYABLE_COMMAND_FORMAT} and later only, so it cannot ` +
      `rebuild this history the way it was applied. Replay it with the build that recorded it, or select only ` +
      `the commands recorded since the upgrade (--from-seq or --since).`,
  );
}

/** A recorded command older than the oldest command format this build replays: the replay stops, saying which. */
export class UnsupportedHistoryError extends Error {}

/** The deployment's commands stream (`<prefix>_COMMANDS`), read in order. */
export class CommandLog {
  readonly stream: string;

  constructor(private readonly nats: NatsClient) {
    this.stream = nats.streamName(Streams.Commands);
  }

  async state(): Promise<CommandLogState> {
    let info;
    try {
      info = await this.nats.jsm.streams.info(this.stream);
    } catch (error) {
      throw new Error(
        `cannot read stream ${this.stream} (${(error as Error).message}): is NATS_PREFIX=${this.nats.prefix} right?`,
        { cause: error },
      );
    }
    return {
      stream: this.stream,
      messages: info.state.messages,
      firstSeq: info.state.first_seq,
      lastSeq: info.state.last_seq,
    };
  }

  /** The recorded commands a selection names, oldest first (an ordered consumer; nothing is acknowledged). */
  async *read(selection: Selection): AsyncGenerator<RecordedCommand> {
    const { lastSeq, messages } = await this.state();
    const end = Math.min(lastSeq, selection.toSeq ?? lastSeq);
    if (messages === 0 || (selection.fromSeq ?? 1) > end) return;
    // No server-side filter: the stream holds nothing but commands, and nats-server 2.9 (Debian's) knows no
    // `filter_subjects`; the selection is applied here.
    const options: Partial<OrderedConsumerOptions> = {};
    if (selection.fromSeq) {
      options.deliver_policy = DeliverPolicy.StartSequence;
      options.opt_start_seq = selection.fromSeq;
    } else if (selection.since) {
      options.deliver_policy = DeliverPolicy.StartTime;
      options.opt_start_time = selection.since.toISOString();
    }
    const consumer = await this.nats.js.consumers.get(this.stream, options);
    for (;;) {
      const batch = await consumer.fetch({ max_messages: 256, expires: 2000 });
      let received = 0;
      for await (const msg of batch) {
        received++;
        if (msg.seq > end) return;
        const command = this.decode(msg);
        if (command && matches(selection, command)) yield replayable(command);
        if (msg.seq >= end || msg.info.pending === 0) return;
      }
      if (received === 0) return;
    }
  }

  /** One command by stream sequence. */
  async get(seq: number): Promise<RecordedCommand | null> {
    const stored = await this.nats.jsm.streams.getMessage(this.stream, { seq }).catch(() => null);
    if (!stored) return null;
    const command = this.toRecorded(
      seq,
      stored.subject,
      stored.time,
      () => stored.json<CommandEnvelope>(),
      stored.header?.get(REPLAY_OF_HEADER),
    );
    return command && replayable(command);
  }

  private decode(msg: JsMsg): RecordedCommand | null {
    return this.toRecorded(
      msg.seq,
      msg.subject,
      msg.time,
      () => msg.json<CommandEnvelope>(),
      msg.headers?.get(REPLAY_OF_HEADER),
    );
  }

  private toRecorded(
    seq: number,
    subject: string,
    recordedAt: Date,
    body: () => CommandEnvelope,
    replayOf: string | undefined,
  ): RecordedCommand | null {
    let envelope: CommandEnvelope;
    try {
      envelope = body();
    } catch {
      return null; // not JSON: the owner dead-letters it; there is nothing to replay
    }
    if (!envelope || typeof envelope.commandId !== 'string') return null;
    const command: RecordedCommand = { seq, recordedAt, subject: this.nats.unprefix(subject), envelope };
    if (replayOf) command.replayOf = Number(replayOf);
    return command;
  }
}
