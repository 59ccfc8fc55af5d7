import {
  ApiPath,
  type CreateRoomRequest,
  type CreateRoomResponse,
  type RoomCredentialsResponse,
} from '@taco/protocol';
import { apiSlice } from './apiSlice';

export interface RequestCredentialsArgs {
  room: string;
  senderId: string;
}

/** Room creation and room credentials (the HTTP half of @taco/protocol, protocol/src/http.ts). */
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
  }),
});

export const { useCreateRoomMutation, useRequestCredentialsMutation } = roomsApi;
