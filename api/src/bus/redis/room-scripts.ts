/**
 * The Lua scripts of rooms' settings records and removals (protocol/README.md §6.9–§6.11, §8.1).
 * Each runs atomically on the room's slot: the record, its removals and its presence share the
 * room's hash tag. Times are Redis's own clock, as presence's are.
 */

const NOW = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
`;

/** Whether a removals field (`h:<holder>`, `k:<key>`, `s:<skeleton>`) is still in force. KEYS[2]. */
const IN_FORCE = `
local function in_force(field)
  local until_ms = redis.call('HGET', KEYS[2], field)
  return until_ms ~= false and tonumber(until_ms) > now
end
`;

/**
 * Create. KEYS: record, seq, log, presence. ARGV: encrypted (0/1), key check, disappear seconds,
 * creator holder, creator name, TTL seconds. Makes the record unless the room exists (a record, a
 * stored sequence or log, a live presence member). Returns {created (1/0), record fields...}; a
 * call sent again after a broken connection finds its own record and is answered as created.
 */
export const ROOM_CREATE_SCRIPT = `${NOW}
local record = redis.call('HGETALL', KEYS[1])
if #record > 0 then
  local created = 0
  if redis.call('HGET', KEYS[1], 'creator') == ARGV[4] then created = 1 end
  return {created, record}
end
if redis.call('EXISTS', KEYS[2], KEYS[3]) > 0
  or redis.call('ZCOUNT', KEYS[4], '(' .. now, '+inf') > 0 then
  return {0, {}}
end
redis.call('HSET', KEYS[1], 'encrypted', ARGV[1], 'key_check', ARGV[2], 'locked', '0',
  'disappear', ARGV[3], 'creator', ARGV[4], 'creator_name', ARGV[5])
redis.call('EXPIRE', KEYS[1], ARGV[6])
return {1, redis.call('HGETALL', KEYS[1])}
`;

/** Get. KEYS: record. ARGV: TTL seconds. The record's fields, its lifetime refreshed. */
export const ROOM_GET_SCRIPT = `
local record = redis.call('HGETALL', KEYS[1])
if #record > 0 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return record
`;

/**
 * Credentials check, all a credential call needs in one script. KEYS: record, removals, presence.
 * ARGV: name key, skeleton, the shown token's holder ('' for none). Returns {record fields, barred
 * (1/0), member (1/0), the names present (one per live member)}.
 */
export const ROOM_CREDENTIALS_SCRIPT = `${NOW}${IN_FORCE}
local barred = in_force('k:' .. ARGV[1]) or in_force('s:' .. ARGV[2])
local member = ARGV[3] ~= '' and not in_force('h:' .. ARGV[3])
local names = {}
for _, present in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '(' .. now, '+inf')) do
  table.insert(names, string.match(present, '^(.-)\\n'))
end
return {redis.call('HGETALL', KEYS[1]), barred and 1 or 0, member and 1 or 0, names}
`;

/** Removed. KEYS: (unused), removals. ARGV: holder. 1 while that holder stays removed. */
export const ROOM_REMOVED_SCRIPT = `${NOW}${IN_FORCE}
if in_force('h:' .. ARGV[1]) then return 1 end
return 0
`;

/**
 * Control. KEYS: record, removals, presence. ARGV: caller holder, action, target key, after
 * seconds, holder removal ms, name bar ms, TTL seconds. Refuses (`{'not_creator'}`) unless the
 * caller holds the creator right; a remove or hand-over finds the target among the live presence
 * members by name key, under another holder than the caller's (`{'not_present'}` when none). A
 * removal notes the target's holder and its name's key and skeleton in the removals hash. Returns
 * {'ok', changed (1/0), {record fields}, target name, target holder}.
 */
export const ROOM_CONTROL_SCRIPT = `${NOW}
if redis.call('HGET', KEYS[1], 'creator') ~= ARGV[1] then return {'not_creator'} end
local action = ARGV[2]
local changed = 0
local target_name, target_holder = '', ''
local function set(field, value)
  if redis.call('HGET', KEYS[1], field) ~= value then
    redis.call('HSET', KEYS[1], field, value)
    changed = 1
  end
end
if action == 'lock' then set('locked', '1')
elseif action == 'unlock' then set('locked', '0')
elseif action == 'disappear' then set('disappear', ARGV[4])
else
  local key, skeleton
  for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '(' .. now, '+inf')) do
    local name, holder, member_key, member_skeleton =
      string.match(member, '^(.-)\\n.-\\n(.-)\\n(.-)\\n(.*)$')
    if member_key == ARGV[3] and holder ~= ARGV[1] then
      target_name, target_holder, key, skeleton = name, holder, member_key, member_skeleton
      break
    end
  end
  if target_holder == '' then return {'not_present'} end
  changed = 1
  if action == 'hand_over' then
    redis.call('HSET', KEYS[1], 'creator', target_holder, 'creator_name', target_name)
  else
    local holder_until, name_until = now + tonumber(ARGV[5]), now + tonumber(ARGV[6])
    redis.call('HSET', KEYS[2], 'h:' .. target_holder, holder_until,
      'k:' .. key, name_until, 's:' .. skeleton, name_until)
    if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[5]) then
      redis.call('PEXPIRE', KEYS[2], ARGV[5])
    end
  end
end
redis.call('EXPIRE', KEYS[1], ARGV[7])
return {'ok', changed, redis.call('HGETALL', KEYS[1]), target_name, target_holder}
`;

/**
 * Renamed. KEYS: record. ARGV: old holder, new holder, new name. Moves the creator right when the
 * old holder has it; returns the record's fields then, else an empty list.
 */
export const ROOM_RENAMED_SCRIPT = `
if redis.call('HGET', KEYS[1], 'creator') ~= ARGV[1] then return {} end
redis.call('HSET', KEYS[1], 'creator', ARGV[2], 'creator_name', ARGV[3])
return redis.call('HGETALL', KEYS[1])
`;
