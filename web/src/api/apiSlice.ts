import { createApi, fetchBaseQuery } from '@reduxjs/toolkit/query/react';
import { config } from '../common/config';

/** The one RTK Query API of the client; features inject their endpoints into it. */
export const apiSlice = createApi({
  reducerPath: 'api',
  baseQuery: fetchBaseQuery({ baseUrl: config.apiOrigin }),
  endpoints: () => ({}),
});
