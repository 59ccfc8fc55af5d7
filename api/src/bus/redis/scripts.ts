/**
 * The Lua scripts of the Redis driver. Each runs atomically, so history and live delivery can
 * never disagree: a message is in history exactly when it was published.
 */

/**
 * How long a storing call's answer is kept under its call key (see `APPEND_SCRIPT`): far longer
 * than ioredis takes to send a call again, which it does on its first reconnect only (later ones
 * fail what was waiting).
 */
export const CALL_TTL_MS = 60_000;

/**
 * The history script's reading of the room's epoch (KEYS: seq, log, epoch; the append script keeps
 * the same rule in fewer commands, see `APPEND_SCRIPT`). The epoch belongs to
 * the seq key: whenever the seq key is missing (a new room, an expired one, data Redis lost), the
 * room's sequence starts again, so it gets a new epoch (the candidate `new_epoch`) and drops any
 * stored message left from the old sequence; a missing epoch alone also gets a new one. Whatever
 * it makes expires after `ttl` seconds, like the room's other keys. Returns the room's epoch, and
 * whether the seq key is missing (the caller starts it).
 */
const EPOCH_PRELUDE = `
local function room_epoch(new_epoch, ttl)
  local epoch = redis.call('GET', KEYS[3])
  local started = redis.call('EXISTS', KEYS[1]) == 0
  if started then
    redis.call('DEL', KEYS[2])
    epoch = false
  end
  if not epoch then
    epoch = new_epoch
    redis.call('SET', KEYS[3], epoch, 'EX', ttl)
  end
  return epoch, started
end
`;

/**
 * Append, for one message or several (a turn's messages, see `AppendBatch`). KEYS: four per
 * message: seq, log, epoch, channel; then the call's key. ARGV: history max, TTL seconds, publish command (PUBLISH, or
 * SPUBLISH for a shard channel), then five per message: message, frame head, tail, epoch
 * candidate, entry head. The channel is declared with the keys, so a Redis Cluster checks its
 * slot. The message is the entry's JSON after its opening brace and up to its `seq`, sent once for
 * both texts; the frame head is what the live frame's envelope has before it (the envelope's first
 * line, `envelopeHeader`, its newline, and the frame's JSON up to the message's fields); the tail
 * is what both texts end with (the `client_id`, the closing brace); the entry head is what the
 * stored entry has before the message (its opening brace, and the connection whose copy is held
 * back, if any). For each message the script writes the entry as
 * \`<entry head><message><seq><tail>\` and publishes
 * \`<frame head><message><seq>,"epoch":"<epoch>"<tail>\`. The log is trimmed only once it holds
 * more than the history max (`RPUSH` answers its length).
 *
 * Returns one line per message, in order: `<seq> <epoch>`, or `!` and the error that stopped that
 * message alone (a key of the wrong type, say; the others are stored). One string is cheaper for
 * Redis to return, and for the replica to read, than an array.
 *
 * The last key is the call's own (`roomCallKey`, unique per call): the answer is kept
 * there for `CALL_TTL_MS`, and a call whose key holds an answer already only returns it. ioredis
 * sends a command again when its connection broke before the answer came, though Redis may have
 * run it: without this, such a message would be stored and delivered twice.
 *
 * The room's epoch as `room_epoch` keeps it (see `EPOCH_PRELUDE`), in fewer commands per message:
 * the seq key always carries the room's TTL, so an `INCR` that returns 1 on a key with no TTL made
 * the key, and the sequence starts again (a new epoch, the old log dropped); a 1 on a key with a
 * TTL is the first message after a reader started the sequence at 0 (`HISTORY_SCRIPT`), which
 * keeps the epoch that reader was given. Otherwise one `GETEX` reads the epoch and refreshes its
 * TTL (Redis ≥ 6.2).
 */
export const APPEND_SCRIPT = `
local call = KEYS[#KEYS]
local answered = redis.call('GET', call)
if answered then return answered end
local max, ttl, publish = tonumber(ARGV[1]), ARGV[2], ARGV[3]
local function append(k, a)
  local seq = redis.call('INCR', KEYS[k + 1])
  local epoch = false
  if seq ~= 1 or redis.call('TTL', KEYS[k + 1]) ~= -1 then
    epoch = redis.call('GETEX', KEYS[k + 3], 'EX', ttl)
  else
    redis.call('DEL', KEYS[k + 2])
  end
  if not epoch then
    epoch = ARGV[a + 4]
    redis.call('SET', KEYS[k + 3], epoch, 'EX', ttl)
  end
  if redis.call('RPUSH', KEYS[k + 2], ARGV[a + 5] .. ARGV[a + 1] .. seq .. ARGV[a + 3]) > max then
    redis.call('LTRIM', KEYS[k + 2], -max, -1)
  end
  redis.call('EXPIRE', KEYS[k + 1], ttl)
  redis.call('EXPIRE', KEYS[k + 2], ttl)
  redis.call(publish, KEYS[k + 4], ARGV[a + 2] .. ARGV[a + 1] .. seq .. ',"epoch":"' .. epoch .. '"' .. ARGV[a + 3])
  return seq .. ' ' .. epoch
end
local replies = {}
for i = 0, (#KEYS - 1) / 4 - 1 do
  local ok, reply = pcall(append, i * 4, 3 + i * 5)
  if not ok then
    reply = '!' .. string.gsub(type(reply) == 'table' and tostring(reply.err) or tostring(reply), '\\n', ' ')
  end
  replies[i + 1] = reply
end
local answer = table.concat(replies, '\\n')
redis.call('SET', call, answer, 'PX', ${CALL_TTL_MS})
return answer
`;

/**
 * Clear. KEYS: seq, log, epoch, channel, cleared, the call's key. ARGV: cleared payload, publish
 * command, TTL seconds. `seq` and epoch are kept. The cleared key notes where the clear left the
 * room, \`<epoch> <seq>\`, so that a reader who resumes from there learns of it (see
 * `HISTORY_SCRIPT`). A call already run (its key is set, see `APPEND_SCRIPT`) does nothing again.
 */
export const CLEAR_SCRIPT = `
if not redis.call('SET', KEYS[6], 1, 'NX', 'PX', ${CALL_TTL_MS}) then return 1 end
redis.call('DEL', KEYS[2])
local seq = redis.call('GET', KEYS[1])
if seq then
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  local epoch = redis.call('GETEX', KEYS[3], 'EX', ARGV[3])
  if epoch and tonumber(seq) > 0 then
    redis.call('SET', KEYS[5], epoch .. ' ' .. seq, 'EX', ARGV[3])
  end
end
redis.call(ARGV[2], KEYS[4], '\\n' .. ARGV[1])
return 1
`;

/**
 * Deletes a room's expired messages from the head of its log (KEYS[2]) when its settings record
 * (KEYS[5]) makes them disappear (protocol/README.md §6.13), by Redis's clock. Returns when the
 * oldest message left expires (ms; a whole period from now when none is left), or -1 when the
 * room's messages do not disappear.
 */
const DISAPPEAR_PRELUDE = `
local function drop_expired()
  local after = tonumber(redis.call('HGET', KEYS[5], 'disappear') or '0') or 0
  if after <= 0 then return -1 end
  local clock = redis.call('TIME')
  local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
  local period = after * 1000
  while true do
    local oldest = redis.call('LINDEX', KEYS[2], 0)
    if not oldest then return now + period end
    local due = math.floor(tonumber(string.match(oldest, '"timestamp":([-%d.eE+]+)')) * 1000) + period
    if due > now then return due end
    redis.call('LPOP', KEYS[2])
  end
end
`;

/**
 * History. KEYS: seq, log, epoch, cleared, the room's settings record. ARGV: count, after ('' for
 * none), the asker's epoch after a `=` ('' for none, so that an empty epoch is one given), epoch
 * candidate, TTL seconds. Returns {complete, entries, epoch}. A room with no seq starts one here
 * (at 0), so the epoch a first reader gets is the one its messages will carry. Expired messages of
 * a room whose messages disappear are deleted first (`DISAPPEAR_PRELUDE`), never answered.
 * The log always holds a contiguous run of seqs ending at the room's last seq. An `after` at or
 * before where the room was last cleared (in this epoch) is answered as incomplete: the asker
 * holds messages the clear removed.
 */
export const HISTORY_SCRIPT = `${EPOCH_PRELUDE}${DISAPPEAR_PRELUDE}
drop_expired()
local count = tonumber(ARGV[1])
local epoch, started = room_epoch(ARGV[4], ARGV[5])
if started then redis.call('SET', KEYS[1], 0, 'EX', ARGV[5]) end
local function latest(complete)
  return {complete, redis.call('LRANGE', KEYS[2], -count, -1), epoch}
end
if ARGV[3] ~= '' and ARGV[3] ~= '=' .. epoch then return latest(0) end
if ARGV[2] == '' then return latest(1) end
local last = tonumber(redis.call('GET', KEYS[1]))
local after = tonumber(ARGV[2])
if after > last then return latest(0) end
local cleared_epoch, cleared_at = string.match(redis.call('GET', KEYS[4]) or '', '^(%S+) (%d+)$')
if cleared_epoch == epoch and after <= tonumber(cleared_at) then return latest(0) end
local length = redis.call('LLEN', KEYS[2])
if length == 0 then
  if after >= last then return {1, {}, epoch} end
  return {0, {}, epoch}
end
local oldest = last - length + 1
local start = after + 1 - oldest
local complete = 1
if start < 0 then
  start = 0
  complete = 0
end
return {complete, redis.call('LRANGE', KEYS[2], start, start + count - 1), epoch}
`;

/**
 * Sweep of one room whose messages disappear. KEYS: seq (unused), log, epoch (unused), cleared
 * (unused), the room's settings record: the keys `DISAPPEAR_PRELUDE` reads, in its places.
 * Returns what `drop_expired` does: when to sweep again (ms), or -1 to stop.
 */
export const DISAPPEAR_SWEEP_SCRIPT = `${DISAPPEAR_PRELUDE}
return drop_expired()
`;

/**
 * The sweep registry's update (KEYS: `taco:disappearing`). ARGV: room, the score the sweep read,
 * the next score ('' to leave the registry). Applied only while the room's score is the one the
 * sweep read: a control that registered the room meanwhile keeps its own.
 */
export const DISAPPEAR_SETTLE_SCRIPT = `
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
end
return 1
`;

/**
 * Shared by the presence scripts: Redis's own clock, so replicas never disagree on time. Members
 * are "name\nconnection\nholder\nkey\nskeleton" (`NameClaim`) scored by the time they expire.
 */
const PRESENCE_PRELUDE = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local function name_of(member)
  return string.match(member, '^(.-)\\n')
end
local function live_members(key)
  return redis.call('ZRANGEBYSCORE', key, '(' .. now, '+inf')
end
local function live_names(key)
  local names = {}
  for _, member in ipairs(live_members(key)) do
    names[name_of(member)] = true
  end
  return names
end
local function claim_of(member)
  return string.match(member, '^.-\\n.-\\n(.-)\\n(.-)\\n(.*)$')
end
-- Whether a live member of another holder than holder (or former) has key or skeleton.
local function clashes(members, holder, former, key, skeleton)
  for _, member in ipairs(members) do
    local other, other_key, other_skeleton = claim_of(member)
    if other and other ~= holder and other ~= former
      and (other_key == key or other_skeleton == skeleton) then
      return true
    end
  end
  return false
end
`;

/**
 * Join. KEYS: presence, room channel, the room's removals. ARGV: name, member, expiry ms, holder,
 * key, skeleton, former holder ('' for none), then optionally an envelope and the publish command:
 * the envelope is published on the room channel when this is the name's first live connection
 * (the newcomer announced in the same round trip). Returns {-2} when the holder was removed from
 * the room, {-1} when a live member of another holder clashes (nothing added in either case),
 * else {first (1/0), roster names...}.
 */
export const PRESENCE_JOIN_SCRIPT = `${PRESENCE_PRELUDE}
local removed_until = redis.call('HGET', KEYS[3], 'h:' .. ARGV[4])
if removed_until and tonumber(removed_until) > now then return {-2} end
local members = live_members(KEYS[1])
if clashes(members, ARGV[4], ARGV[7], ARGV[5], ARGV[6]) then return {-1} end
local names = {}
for _, member in ipairs(members) do names[name_of(member)] = true end
local first = 1
if names[ARGV[1]] then first = 0 end
names[ARGV[1]] = true
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) * 3)
if first == 1 and ARGV[8] then redis.call(ARGV[9], KEYS[2], ARGV[8]) end
local result = {first}
for name in pairs(names) do table.insert(result, name) end
return result
`;

/**
 * Leave. KEYS: presence, room channel. ARGV: name, member, then optionally an envelope and the
 * publish command: the envelope is published on the room channel when no live connection of the
 * name is left. Returns 1 when no live connection of the name is left.
 */
export const PRESENCE_LEAVE_SCRIPT = `${PRESENCE_PRELUDE}
if redis.call('ZREM', KEYS[1], ARGV[2]) == 0 then return 0 end
if live_names(KEYS[1])[ARGV[1]] then return 0 end
if ARGV[3] then redis.call(ARGV[4], KEYS[2], ARGV[3]) end
return 1
`;

/**
 * Keep: one replica's pass over a room (KEYS: presence, the room's removals). ARGV: expiry ms,
 * then name, member, connection triples of the replica's connections there. A member whose holder
 * was removed from the room is not refreshed, and its connection noted as removed: the replica
 * closes it, and its leave tells the room (the removals are read only when the room has any). First refreshes those members, noting
 * the names that had been gone (reaped) and are back; a member that had lapsed (reaped, or expired
 * and not yet reaped) while someone else took its name, or one that clashes with it, is not
 * brought back but noted as taken (and reaped as expired). Then
 * removes every member whose replica stopped refreshing it, noting the names with no live member
 * left. One script per room and pass, not a refresh and a reap. Returns `{back, gone, taken}`.
 */
export const PRESENCE_KEEP_SCRIPT = `${PRESENCE_PRELUDE}
local expiry = tonumber(ARGV[1])
local members = nil
local names = nil
local back = {}
local taken = {}
local removed = {}
local seen = {}
local removals = redis.call('EXISTS', KEYS[2]) == 1
for i = 2, #ARGV, 3 do
  local name, member = ARGV[i], ARGV[i + 1]
  local keep = true
  if removals then
    local holder = claim_of(member)
    local until_ms = holder and redis.call('HGET', KEYS[2], 'h:' .. holder)
    if until_ms and tonumber(until_ms) > now then
      keep = false
      table.insert(removed, ARGV[i + 2])
    end
  end
  local score = keep and redis.call('ZSCORE', KEYS[1], member)
  if keep and (not score or tonumber(score) <= now) then
    -- Lapsed: someone else may have taken the name meanwhile.
    members = members or live_members(KEYS[1])
    local holder, key, skeleton = claim_of(member)
    if holder and clashes(members, holder, holder, key, skeleton) then
      keep = false
      table.insert(taken, ARGV[i + 2])
    elseif not score then
      names = names or live_names(KEYS[1])
      if not names[name] and not seen[name] then
        table.insert(back, name)
        seen[name] = true
      end
    end
  end
  if keep then redis.call('ZADD', KEYS[1], now + expiry, member) end
end
if #ARGV > 1 then redis.call('PEXPIRE', KEYS[1], expiry * 3) end
local gone = {}
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)
if #expired > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  local live = live_names(KEYS[1])
  for _, member in ipairs(expired) do
    local name = name_of(member)
    if not live[name] then
      table.insert(gone, name)
      live[name] = true
    end
  end
end
return {back, gone, taken, removed}
`;

/** Live names. KEYS: presence. */
export const PRESENCE_NAMES_SCRIPT = `${PRESENCE_PRELUDE}
local result = {}
for name in pairs(live_names(KEYS[1])) do table.insert(result, name) end
return result
`;
