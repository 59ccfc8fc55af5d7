/** The presence scripts of the Redis driver (protocol/README.md §8.3). */

/**
 * Shared by the presence scripts: Redis's own clock, so replicas never disagree on time. Members
 * are "name\nconnection\nholder\nkey\nskeleton" (`NameClaim`) scored by the presence lease of the
 * replica that holds the connection: a number from 2^50 to 2^53, far beyond any clock reading, so
 * a member is live until its lease is reaped (`PRESENCE_REAP_SCRIPT`). A member scored by a time
 * (as replicas before leases wrote them) is live until that time.
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
 * Join. KEYS: presence, room channel, the room's removals. ARGV: name, member, the replica's
 * lease, holder, key, skeleton, former holder ('' for none), then optionally an envelope and the
 * publish command: the envelope is published on the room channel when this is the name's first
 * live connection (the newcomer announced in the same round trip). Returns {-2} when the holder
 * was removed from the room, {-1} when a live member of another holder clashes (nothing added in
 * either case), else {first (1/0), roster names...}.
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
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
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
 * Keep: one replica's pass over a room, run only when its members there may have been lost (its
 * lease lapsed and was reaped, Redis lost data, its subscription was down). KEYS: presence, the
 * room's removals. ARGV: the replica's lease, then name, member, connection triples of its
 * connections there. A member whose holder was removed from the room is not added, and its
 * connection noted as removed: the replica closes it, and its leave tells the room (the removals
 * are read only when the room has any). A missing member is added again under the lease and its
 * name noted as back, unless someone else took the name meanwhile (or one that clashes with it):
 * then it is not added but noted as taken. Returns `{back, taken, removed}`.
 */
export const PRESENCE_KEEP_SCRIPT = `${PRESENCE_PRELUDE}
local lease = ARGV[1]
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
    -- Lost: someone else may have taken the name meanwhile.
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
  if keep and score ~= lease then redis.call('ZADD', KEYS[1], lease, member) end
end
return {back, taken, removed}
`;

/**
 * Reap: removes a lapsed lease's members from a room (KEYS: presence; ARGV: the lease). Returns
 * the names no live member is left of.
 */
export const PRESENCE_REAP_SCRIPT = `${PRESENCE_PRELUDE}
local members = redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[1])
if #members == 0 then return {} end
redis.call('ZREMRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[1])
local live = live_names(KEYS[1])
local gone = {}
for _, member in ipairs(members) do
  local name = name_of(member)
  if not live[name] then
    table.insert(gone, name)
    live[name] = true
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
