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

--- The message for `rewind/agentRewind`: the server's sentence saying what an
--- agent's own rewind did and what rewind-lsp did about it, then, for each
--- action it offers, the command that does it here. Pure (tested directly).
function M.agent_rewind_message(p)
  local msg = tostring(p.message or '')
  for _, a in ipairs(util.list(p.actions)) do
    if type(a) == 'table' and a.id == 'rewindFiles' then
      msg = msg .. ' :Rewind ' .. tostring(p.target) .. ' code ' .. table.concat(util.list(p.offered), ' ') .. ' restores them.'
    elseif type(a) == 'table' and a.id == 'undo' then
      msg = msg .. ' :RewindUndo takes it back.'
    end
  end
  return msg
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
