-- rewind.paging: reading a long history a page at a time.
--
-- `rewind.list` answers one page: the latest `limit` turns of the active
-- branch numbered below `before` (from the latest when absent), with the
-- checkpoints, rewinds and reports recorded among them, and `more` when older
-- turns were left out. :RewindLog and the turn pickers list the latest page
-- (the `turns_per_page` option) and load older pages when asked; a log that
-- refreshes asks for as many turns as it shows, so the pages loaded stay.
-- Pure functions (tested directly).
local util = require('rewind.util')

local M = {}

--- The `before` that lists the page older than `list` (its first turn's
--- number), or nil when `list` reaches the oldest turn.
function M.older_before(list)
  local first = util.list(list and list.turns)[1]
  if list and list.more == true and type(first) == 'table' and type(first.turn) == 'number' then
    return first.turn
  end
  return nil
end

--- `older` (the page listed before the first turn of `shown`) joined to
--- `shown`: every list stays oldest first and `more` is the older page's. An
--- entry both hold (the history moved between the two listings) is kept
--- once, as `shown` has it.
function M.append_older(shown, older)
  local function join(a, b)
    local have, out = {}, {}
    for _, x in ipairs(util.list(b)) do
      if type(x) == 'table' and x.entry then
        have[x.entry] = true
      end
    end
    for _, x in ipairs(util.list(a)) do
      if type(x) == 'table' and not have[x.entry] then
        out[#out + 1] = x
      end
    end
    for _, x in ipairs(util.list(b)) do
      out[#out + 1] = x
    end
    return out
  end
  return {
    turns = join(older.turns, shown.turns),
    checkpoints = join(older.checkpoints, shown.checkpoints),
    rewinds = join(older.rewinds, shown.rewinds),
    summaries = join(older.summaries, shown.summaries),
    more = older.more == true,
  }
end

return M
