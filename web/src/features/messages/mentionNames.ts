import { createSelector } from '@reduxjs/toolkit';
import { selectParticipantNames } from '../presence/presenceSlice';
import { selectMessages } from './messagesSlice';

/**
 * Every name "@…" can mean in the room, sorted: its participants and the senders of the messages
 * held. The feed's highlight, the tab title and the bell all read mentions against the same list.
 */
export const selectMentionNames = createSelector(
  [selectParticipantNames, selectMessages],
  (participants, messages): string[] => {
    const all = new Set(participants);
    for (const message of messages) all.add(message.senderName);
    return [...all].sort();
  },
);
