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
 * message: seq, log, epoch, channel; then the call's key. ARGV: history max, TTL seconds, publish
 * command (PUBLISH, or SPUBLISH for a shard channel), the epoch candidate (taken by any room of
 * the call whose sequence starts), the entry head, then three per message: message, frame head,
 * tail. The channel is declared with the keys, so a Redis Cluster checks its slot. The message is
 * the entry's JSON after its opening brace and up to its `seq`, sent once for both texts; the
 * frame head is what the live frame's envelope has before it (the envelope's first line,
 * `envelopeHeader`, its newline, and the frame's JSON up to the message's fields); the tail is
 * what both texts end with (the `client_id`, the closing brace); the entry head is what every
 * stored entry of the call has before its message (its opening brace, and the connection whose
 * copy is held back, if any: such a call stores that one message). For each message the script
 * writes the entry as \`<entry head><message><seq><tail>\` and publishes
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
local max, ttl, publish, candidate, head = tonumber(ARGV[1]), ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local function append(k, a)
  local seq = redis.call('INCR', KEYS[k + 1])
  local epoch = false
  if seq ~= 1 or redis.call('TTL', KEYS[k + 1]) ~= -1 then
    epoch = redis.call('GETEX', KEYS[k + 3], 'EX', ttl)
  else
    redis.call('DEL', KEYS[k + 2])
  end
  if not epoch then
    epoch = candidate
    redis.call('SET', KEYS[k + 3], epoch, 'EX', ttl)
  end
  if redis.call('RPUSH', KEYS[k + 2], head .. ARGV[a + 1] .. seq .. ARGV[a + 3]) > max then
    redis.call('LTRIM', KEYS[k + 2], -max, -1)
  end
  redis.call('EXPIRE', KEYS[k + 1], ttl)
  redis.call('EXPIRE', KEYS[k + 2], ttl)
  redis.call(publish, KEYS[k + 4], ARGV[a + 2] .. ARGV[a + 1] .. seq .. ',"epoch":"' .. epoch .. '"' .. ARGV[a + 3])
  return seq .. ' ' .. epoch
end
local replies = {}
for i = 0, (#KEYS - 1) / 4 - 1 do
  local ok, reply = pcall(append, i * 4, 5 + i * 3)
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
