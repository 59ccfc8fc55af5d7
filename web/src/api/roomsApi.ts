import {
  ApiPath,
  type CreateRoomRequest,
  type CreateRoomResponse,
  type RoomCredentialsResponse,
  type RoomInfoResponse,
  type RoomNameResponse,
} from '@taco/protocol';
import { apiSlice } from './apiSlice';

export interface RequestCredentialsArgs {
  room: string;
  senderId: string;
}

/**
 * Room creation, credentials and what the create form asks about rooms (the HTTP half of
 * @taco/protocol, protocol/src/http.ts).
 */
export const roomsApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    createRoom: build.mutation<CreateRoomResponse, CreateRoomRequest>({
      query: (body) => ({ url: ApiPath.createRoom, method: 'POST', body }),
    }),
    requestCredentials: build.mutation<RoomCredentialsResponse, RequestCredentialsArgs>({
      query: ({ room, senderId }) => ({
        url: ApiPath.roomCredentials(room),
        method: 'POST',
        body: { sender_id: senderId },
      }),
    }),
    /**
     * Credentials for another name in a room the user is in, for a rename: the same call as
     * `requestCredentials`, but the room's credential changes only once the server confirmed
     * the rename on the socket.
     */
    renameCredentials: build.mutation<RoomCredentialsResponse, RequestCredentialsArgs>({
      query: ({ room, senderId }) => ({
        url: ApiPath.roomCredentials(room),
        method: 'POST',
        body: { sender_id: senderId },
      }),
    }),
    /** A generated name of a room no one uses; a new one on every mount. */
    roomName: build.query<RoomNameResponse, void>({
      query: () => ApiPath.roomName,
      keepUnusedDataFor: 0,
    }),
    /** How many people are in a room now. */
    roomInfo: build.query<RoomInfoResponse, string>({
      query: (room) => ApiPath.roomInfo(room),
      keepUnusedDataFor: 10,
    }),
  }),
});

export const {
  useCreateRoomMutation,
  useRenameCredentialsMutation,
  useRequestCredentialsMutation,
  useRoomInfoQuery,
  useRoomNameQuery,
} = roomsApi;
