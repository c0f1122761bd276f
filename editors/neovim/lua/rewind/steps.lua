-- rewind.steps: the steps of a turn — each tool call of an agent inside a
-- turn that changed files (an automatic turn's bursts of changes). A step's
-- target ("3.2", or "turn:3:step:2") is the state just before it ran: a
-- rewind, a preview or a revert takes it like a turn's. A step lies inside
-- its turn, so a rewind to it moves files only (mode `code`): the
-- conversation goes back to a turn's start or end, never into a turn.
-- Pure functions (tested directly).
local util = require('rewind.util')

local M = {}

--- The steps of a turn of `rewind.list`, in order (those with a target).
function M.of(turn)
  local out = {}
  for _, s in ipairs(util.list(type(turn) == 'table' and turn.steps or nil)) do
    if type(s) == 'table' and util.str(s.target) then
      out[#out + 1] = s
    end
  end
  return out
end

--- True when `target` names a step: "3.2" or "turn:3:step:2".
function M.is_target(target)
  if type(target) ~= 'string' then
    return false
  end
  return target:match('^%s*%d+%.%d+%s*$') ~= nil or target:match('^%s*turn:%d+:step:%d+%s*$') ~= nil
end

--- The mode a rewind to `target` takes when none was given: `default`, but
--- `code` for a step when `default` would move the conversation.
function M.default_mode(target, default)
  if M.is_target(target) and (default == 'both' or default == 'conversation') then
    return 'code'
  end
  return default
end

--- A step in one line, in the server's words: its title, how long ago, what
--- it changed ("turn 3, step 2: Bash "npm test"  5m ago  1 file changed (+1 -1)").
function M.line(s, width)
  return string.format('%s  %s  %s', util.truncate(tostring(s.title), width or 80), tostring(s.age), tostring(s.what))
end

return M
