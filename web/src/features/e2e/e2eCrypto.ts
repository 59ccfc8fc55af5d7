// The room key's construction (protocol/README.md §6.12), in a chunk of its own: only an
// encrypted room, or creating one, loads it.
export { newRoomKey, roomCipher } from '@taco/protocol';
