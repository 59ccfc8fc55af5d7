/**
 * The Lua scripts of the Redis driver. Each runs atomically, so history and live delivery can
 * never disagree: a message is in history exactly when it was published.
 */

/**
 * Append. KEYS: seq, log. ARGV: stored head, stored tail, frame head, frame tail, history max,
 * TTL seconds, channel. The heads and tails are the JSON of the message around its `seq`.
 */
export const APPEND_SCRIPT = `
local seq = redis.call('INCR', KEYS[1])
redis.call('RPUSH', KEYS[2], ARGV[1] .. seq .. ARGV[2])
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[5]), -1)
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('EXPIRE', KEYS[2], ARGV[6])
redis.call('PUBLISH', ARGV[7], '\\n' .. ARGV[3] .. seq .. ARGV[4])
return seq
`;

/** Clear. KEYS: seq, log. ARGV: cleared frame, channel, TTL seconds. `seq` is kept. */
export const CLEAR_SCRIPT = `
redis.call('DEL', KEYS[2])
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('EXPIRE', KEYS[1], ARGV[3])
end
redis.call('PUBLISH', ARGV[2], '\\n' .. ARGV[1])
return 1
`;

/**
 * History. KEYS: seq, log. ARGV: count, after ('' for none). Returns {complete, entries}.
 * The log always holds a contiguous run of seqs ending at the room's last seq.
 */
export const HISTORY_SCRIPT = `
local count = tonumber(ARGV[1])
local last = tonumber(redis.call('GET', KEYS[1]) or '0')
if ARGV[2] == '' then
  return {1, redis.call('LRANGE', KEYS[2], -count, -1)}
end
local after = tonumber(ARGV[2])
if after > last then
  return {0, redis.call('LRANGE', KEYS[2], -count, -1)}
end
local length = redis.call('LLEN', KEYS[2])
if length == 0 then
  if after >= last then return {1, {}} end
  return {0, {}}
end
local oldest = last - length + 1
local start = after + 1 - oldest
local complete = 1
if start < 0 then
  start = 0
  complete = 0
end
return {complete, redis.call('LRANGE', KEYS[2], start, start + count - 1)}
`;

/** Shared by the presence scripts: Redis's own clock, so replicas never disagree on time. */
const PRESENCE_PRELUDE = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local function name_of(member)
  return string.match(member, '^(.-)\\n')
end
local function live_names(key)
  local names = {}
  for _, member in ipairs(redis.call('ZRANGEBYSCORE', key, '(' .. now, '+inf')) do
    names[name_of(member)] = true
  end
  return names
end
`;

/**
 * Join. KEYS: presence. ARGV: name, member, expiry ms. Members are "name\\nconnection" scored by
 * the time they expire. Returns {first (1/0), roster names...}.
 */
export const PRESENCE_JOIN_SCRIPT = `${PRESENCE_PRELUDE}
local names = live_names(KEYS[1])
local first = 1
if names[ARGV[1]] then first = 0 end
names[ARGV[1]] = true
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) * 3)
local result = {first}
for name in pairs(names) do table.insert(result, name) end
return result
`;

/** Leave. KEYS: presence. ARGV: name, member. Returns 1 when no live connection of the name is left. */
export const PRESENCE_LEAVE_SCRIPT = `${PRESENCE_PRELUDE}
if redis.call('ZREM', KEYS[1], ARGV[2]) == 0 then return 0 end
if live_names(KEYS[1])[ARGV[1]] then return 0 end
return 1
`;

/**
 * Refresh. KEYS: presence. ARGV: expiry ms, then name, member pairs. Returns the names that were
 * gone (reaped) and are back.
 */
export const PRESENCE_REFRESH_SCRIPT = `${PRESENCE_PRELUDE}
local expiry = tonumber(ARGV[1])
local names = nil
local back = {}
local seen = {}
for i = 2, #ARGV, 2 do
  local name, member = ARGV[i], ARGV[i + 1]
  if not redis.call('ZSCORE', KEYS[1], member) then
    names = names or live_names(KEYS[1])
    if not names[name] and not seen[name] then
      table.insert(back, name)
      seen[name] = true
    end
  end
  redis.call('ZADD', KEYS[1], now + expiry, member)
end
redis.call('PEXPIRE', KEYS[1], expiry * 3)
return back
`;

/** Reap. KEYS: presence. Removes expired members; returns the names with no live member left. */
export const PRESENCE_REAP_SCRIPT = `${PRESENCE_PRELUDE}
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)
if #expired == 0 then return {} end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local names = live_names(KEYS[1])
local gone = {}
for _, member in ipairs(expired) do
  local name = name_of(member)
  if not names[name] then
    table.insert(gone, name)
    names[name] = true
  end
end
return gone
`;

/** Live names. KEYS: presence. */
export const PRESENCE_NAMES_SCRIPT = `${PRESENCE_PRELUDE}
local result = {}
for name in pairs(live_names(KEYS[1])) do table.insert(result, name) end
return result
`;
