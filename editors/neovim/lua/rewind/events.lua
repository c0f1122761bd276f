-- rewind.events: the journal cache of each root and what happens when the
-- server says the journal changed (`rewind/didChange`).
local util = require('rewind.util')

local M = {}

-- root -> { list = rewind.list result, stale = bool }
local cache = {}

--- Remembers the latest `rewind.list` result of a root (for completion).
function M.store(root, list)
  cache[root] = { list = list, stale = false }
end

--- Marks the cache of a root stale (after a command that changed the journal).
function M.invalidate(root)
  if root and cache[root] then
    cache[root].stale = true
  end
end

--- The cached `rewind.list` result of a root, or nil; `stale` when the
--- journal changed since.
function M.cached(root)
  local c = cache[root]
  if not c then
    return nil
  end
  return c.list, c.stale
end

--- Fires `User <pattern>` with data where Neovim supports it (0.8+).
function M.fire(pattern, data)
  local opts = { pattern = pattern, modeline = false }
  if util.has('0.8') then
    opts.data = data
  end
  pcall(vim.api.nvim_exec_autocmds, 'User', opts)
end

--- Called on `rewind/didChange` {root, turns, latest} from a client.
function M.changed(root, client_id, params)
  if root and cache[root] then
    cache[root].stale = true
  end
  M.last_change = { root = root, client_id = client_id, params = params, time = os.time() }
  util.guard(function()
    require('rewind.logview').refresh(root)
  end)
  if package.loaded['rewind.blame'] then
    util.guard(function()
      require('rewind.blame').refresh_root(root)
    end)
  end
  M.fire('RewindChanged', { root = root, turns = params.turns, latest = params.latest })
end

--- The message for `rewind/agentRewind`: what an agent's own rewind did
--- and what rewind-lsp did about it, naming the command that restores what
--- is left. Pure (tested directly).
function M.agent_rewind_message(p)
  local who = p.agent == 'claude-code' and 'Claude Code' or tostring(p.agent or 'the agent')
  local prompt = tostring(p.prompt or ''):match('^[^\n]*')
  local where = 'before turn ' .. tostring(p.turn) .. (prompt ~= '' and (' ("' .. prompt .. '")') or '')
  local offered, files, kept = p.offered or {}, p.files or {}, p.kept or {}
  if #offered > 0 then
    return string.format(
      '%s rewound its conversation to %s but restored no files; %d %s: %s. :Rewind %s code %s restores them.',
      who, where, #offered, #offered == 1 and 'file still differs' or 'files still differ', table.concat(offered, ', '),
      tostring(p.target), table.concat(offered, ' ')
    )
  end
  if #files > 0 then
    local msg = string.format(
      '%s rewound to %s and restored its own edits; rewind-lsp restored what its shell changed too: %s.',
      who, where, table.concat(files, ', ')
    )
    if #kept > 0 then
      msg = msg .. ' Left as they are (changed since by someone else): ' .. table.concat(kept, ', ') .. '.'
    end
    return msg .. ' :RewindUndo takes it back.'
  end
  return string.format('%s rewound its conversation to %s; no file needed restoring.', who, where)
end

--- Called on `rewind/agentRewind` from a client: tells the person, and
--- keeps it (M.agent_rewinds) for the log and for tests.
function M.agent_rewind(root, client_id, params)
  M.agent_rewinds = M.agent_rewinds or {}
  table.insert(M.agent_rewinds, { root = root, client_id = client_id, params = params })
  util.notify(M.agent_rewind_message(params))
  M.fire('RewindAgentRewind', params)
end

return M
