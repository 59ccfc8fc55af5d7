import { Injectable } from '@nestjs/common';
import {
  type ClientControlFrame,
  ErrorCode,
  errorFrame,
  FrameErrorMessage,
  REMOVED_NAME_BAR_MS,
  type RoomEvent as RoomChange,
} from '@taco/protocol';
import { ChatBus } from '../bus/chat-bus.port';
import { nameForms } from '../bus/name-claim';
import { roomControlEvent, roomFrame } from '../bus/room-events';
import { type RoomControl, RoomSettingsStore } from '../bus/room-settings.port';
import { AppConfig } from '../config/app-config';
import { type ChatConnection } from './chat-connection';
import { type FrameReply } from './room-frame-handler';

/**
 * Frame 9: the creator changes the room (protocol/README.md §6.9–§6.11, §6.13). The store checks
 * the creator right and applies the change in one step; every replica then hears the room frame,
 * and closes a removed holder's connections. `ChatGateway` routes the frame here once it passed
 * the steps every frame shares (rate limit, the wait for a rename under way).
 */
@Injectable()
export class RoomControls {
  constructor(
    private readonly config: AppConfig,
    private readonly bus: ChatBus,
    private readonly rooms: RoomSettingsStore,
  ) {}

  /**
   * Applies the sender's control. A refusal is an error frame for the sender; a control that
   * changes nothing is answered with the room frame to the sender alone; a change is published
   * to the room and answers nothing.
   */
  async control(connection: ChatConnection, frame: ClientControlFrame): Promise<FrameReply> {
    const { room, claim } = connection;
    const refuse = (code: ErrorCode, message: string) =>
      errorFrame({ code, message }, frame.client_id);
    let command: RoomControl;
    if (frame.action === 'disappear') {
      if (!this.config.disappearChoices.includes(frame.after)) {
        return refuse(
          ErrorCode.BadFrame,
          FrameErrorMessage.disappearAfter(this.config.disappearChoices),
        );
      }
      command = { action: 'disappear', after: frame.after };
    } else if (frame.action === 'remove' || frame.action === 'hand_over') {
      command = { action: frame.action, target: nameForms(frame.name.trim()) };
    } else {
      command = { action: frame.action };
    }
    const outcome = await this.rooms.control(room, claim.holder, command, {
      holderMs: this.config.tokenTtlSeconds * 1000,
      nameMs: REMOVED_NAME_BAR_MS,
    });
    if (!outcome.done) {
      return outcome.refused === 'not_creator'
        ? refuse(ErrorCode.NotCreator, FrameErrorMessage.notCreator)
        : refuse(ErrorCode.NotPresent, FrameErrorMessage.notPresent);
    }
    const { record, target } = outcome;
    if (!outcome.changed) return roomFrame(room, record, record.creator === claim.holder);
    const change: RoomChange = { action: frame.action, by: claim.name };
    if (target) change.name = target.name;
    if (frame.action === 'disappear') change.after = frame.after;
    const removed = frame.action === 'remove' ? target?.holder : undefined;
    await this.bus.publish(room, roomControlEvent(room, record, change, removed));
    return undefined;
  }
}
