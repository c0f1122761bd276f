-- rewind.commands: the user commands (:Rewind…, see doc/rewind.txt) and their completion.
--
-- Every command runs as a coroutine flow guarded at its boundary: errors reach
-- the user through vim.notify, never as a Lua stack trace.
local apply = require('rewind.apply')
local client_mod = require('rewind.client')
local config = require('rewind.config')
local events = require('rewind.events')
local picker = require('rewind.picker')
local plan_ui = require('rewind.plan')
local protocol = require('rewind.protocol')
local steps = require('rewind.steps')
local util = require('rewind.util')

local M = {}

local function check_mode(mode)
  if mode ~= nil and not vim.tbl_contains(config.modes, mode) then
    util.fail(string.format('unknown mode %q; use one of: %s', mode, table.concat(config.modes, ', ')))
  end
end

-- The arguments of a command; Neovim 0.7 gives {""} for an absent optional one.
local function fargs(a)
  local out = {}
  for _, x in ipairs(a.fargs or {}) do
    if x ~= '' then
      out[#out + 1] = x
    end
  end
  return out
end

-- A mode given first (":Rewind code") is taken as the mode, not a target.
local function split_args(fargs)
  local target, mode = fargs[1], fargs[2]
  if target and not mode and vim.tbl_contains(config.modes, target) then
    return nil, target
  end
  if #fargs > 2 then
    -- :Rewind target mode path...: the rewind of those files only.
    if not (mode and vim.tbl_contains(config.modes, mode)) then
      util.fail('too many arguments: expected [target] [mode] [path...], got ' .. table.concat(fargs, ' '))
    end
    return target, mode, vim.list_slice(fargs, 3)
  end
  return target, mode
end

--- In a coroutine: the full :Rewind flow. opts: {target?, mode?, paths?,
--- confirm?, force?, report?}; paths limits the rewind to those files.
function M.rewind_flow(opts)
  local client, root = client_mod.current()
  local target, mode = opts.target, opts.mode
  check_mode(mode)
  if not target then
    target = picker.pick_target(client, root)
    if not target then
      return
    end
    -- A step moves files only: no mode to ask for.
    if not mode and not steps.is_target(target) then
      mode = picker.pick_mode()
      if not mode then
        return
      end
    end
  end
  mode = mode or steps.default_mode(target, config.get().default_mode)

  local paths = opts.paths and #opts.paths > 0 and opts.paths or nil
  local plan = util.exec(client, protocol.commands.preview, { target = target, mode = mode, paths = paths })
  if type(plan) ~= 'table' then
    util.fail('rewind.preview returned no plan for ' .. target)
  end
  if mode == 'plan' then
    local close = plan_ui.show(plan, config.get().plan_view)
    if config.get().plan_view == 'float' then
      -- A dry run: keep the plan up until the cursor moves.
      vim.api.nvim_create_autocmd({ 'CursorMoved', 'CursorMovedI', 'BufLeave', 'InsertEnter' }, {
        once = true,
        callback = close,
      })
    end
    return plan
  end
  if mode == 'code' and #plan_ui.files(plan) == 0 then
    util.notify('nothing to rewind: the files already match ' .. plan_ui.target_name(plan.target))
    return plan
  end

  local force = opts.force == true
  local ask = opts.confirm
  if ask == nil then
    ask = config.get().confirm
  end
  if ask then
    local close = plan_ui.show(plan, config.get().plan_view)
    local ok, choice = pcall(picker.confirm, plan)
    close()
    if not ok then
      error(choice, 0)
    end
    if not choice then
      util.notify('rewind cancelled')
      return plan
    end
    force = force or choice == 'force'
  end
  local report = opts.report
  if mode == 'summarize' and report == nil and ask then
    report = util.input({ prompt = 'What was learnt on the skipped turns: ' })
    if not util.str(vim.trim(report or '')) then
      util.notify('no summary recorded: summarize needs a report of what was learnt', vim.log.levels.WARN)
      return plan
    end
  end

  local tracker = client_mod.track(client)
  local ok, result = pcall(util.exec, client, protocol.commands.rewind, {
    target = target,
    mode = mode,
    paths = paths,
    force = force or nil,
    report = util.str(report),
  })
  if not ok then
    tracker.finish()
    error(result, 0)
  end
  return apply.finish(client, root, 'rewind', result, tracker, mode)
end

--- In a coroutine: rewind.undo, then write and verify.
function M.undo_flow()
  local client, root = client_mod.current()
  local tracker = client_mod.track(client)
  local ok, result = pcall(util.exec, client, protocol.commands.undo, {})
  if not ok then
    tracker.finish()
    error(result, 0)
  end
  return apply.finish(client, root, 'undo', result, tracker, nil)
end

--- In a coroutine: rewind.checkpoint with an optional label.
function M.checkpoint_flow(label)
  local client, root = client_mod.current()
  if label == nil then
    label = util.input({ prompt = 'Checkpoint label (empty for none): ' })
    if label == nil then
      return
    end
  end
  label = vim.trim(label)
  local res = util.exec(client, protocol.commands.checkpoint, { label = util.str(label) })
  events.invalidate(root)
  res = type(res) == 'table' and res or {}
  local files = tonumber(res.files)
  util.notify(string.format(
    'checkpoint %s saved%s',
    label ~= '' and ('@' .. label) or tostring(res.entry or ''):sub(1, 8),
    files and (' (' .. files .. ' files)') or ''
  ))
  M.last_checkpoint = res
  return res
end

-- ---------------------------------------------------------------------------
-- Command entry points (called by plugin/rewind.lua).

local function run(flow, ...)
  util.run(flow, ...)
end

function M.Rewind(a)
  local ok = util.guard(function()
    local target, mode, paths = split_args(fargs(a))
    check_mode(mode)
    local opts = { target = target, mode = mode, paths = paths }
    if a.bang then
      opts.confirm = false -- :Rewind! applies without asking
    end
    run(M.rewind_flow, opts)
  end)
  return ok
end

function M.RewindPreview(a)
  util.guard(function()
    local args = fargs(a)
    if #args > 1 then
      util.fail('too many arguments: expected [target], got ' .. table.concat(args, ' '))
    end
    run(require('rewind.preview').flow, { target = args[1] })
  end)
end

function M.RewindUndo()
  run(M.undo_flow)
end

function M.RewindCheckpoint(a)
  local label = a.args ~= '' and a.args or nil
  run(M.checkpoint_flow, label)
end

function M.RewindLog(a)
  util.guard(function()
    local args = fargs(a or {})
    local count = args[1] and tonumber(args[1])
    if #args > 1 or (args[1] and not (count and count >= 1 and math.floor(count) == count)) then
      util.fail('expected a number of turns to list, got ' .. table.concat(args, ' '))
    end
    run(require('rewind.logview').flow, count)
  end)
end

--- :RewindResume: a :terminal in the root running the latest conversation
--- rewind's resume command. Returns the terminal's buffer.
function M.RewindResume()
  local last = require('rewind.apply').last_resume
  if not last then
    util.notify('no conversation was rewound in this Neovim yet: rewind to a turn with mode "both" or "conversation" first',
      vim.log.levels.WARN)
    return nil
  end
  vim.cmd('botright split')
  local buf = vim.api.nvim_create_buf(true, false)
  vim.api.nvim_win_set_buf(0, buf)
  local job = vim.fn.termopen(last.command, { cwd = last.root })
  if job <= 0 then
    util.notify('could not start a terminal for: ' .. last.command, vim.log.levels.ERROR)
    return nil
  end
  vim.cmd('startinsert')
  require('rewind.events').fire('RewindResume', { command = last.command, root = last.root, buf = buf })
  return buf
end

function M.RewindRevert(a)
  util.guard(function()
    local args = fargs(a)
    if #args > 1 then
      util.fail('too many arguments: expected [target], got ' .. table.concat(args, ' '))
    end
    local opts = { target = args[1] }
    if a.bang then
      opts.confirm = false -- :RewindRevert! reverts without asking
    end
    run(require('rewind.revert').flow, opts)
  end)
end

function M.RewindBlame()
  util.guard(function()
    require('rewind.blame').toggle()
  end)
end

-- ---------------------------------------------------------------------------
-- Completion.

local function cached_list()
  local root = client_mod.current_root()
  local list, stale = events.cached(root)
  if list and not stale then
    return list
  end
  local client = client_mod.get(root)
  if not client or not client_mod.is_ready(client) then
    return list
  end
  local ok, res = pcall(util.client_call, client, 'request_sync', 'workspace/executeCommand', {
    command = protocol.commands.list,
    arguments = { { limit = config.get().turns_per_page } },
  }, 500)
  if ok and type(res) == 'table' and type(res.result) == 'table' then
    events.store(root, res.result)
    return res.result
  end
  return list
end

local function filter(items, lead)
  local out = {}
  for _, it in ipairs(items) do
    if it:sub(1, #lead) == lead then
      out[#out + 1] = it
    end
  end
  return out
end

-- Index of the argument under the cursor (1-based) in a command line.
local function arg_index(cmdline, pos)
  local before = cmdline:sub(1, pos)
  local words = vim.split(before, '%s+')
  -- words[1] is the command itself ("Rewind" / "Rewind!").
  return #words - 1
end

function M.complete_rewind(lead, cmdline, pos)
  local ok, res = pcall(function()
    local idx = arg_index(cmdline, pos)
    if idx <= 1 then
      local cands = picker.target_candidates(cached_list())
      vim.list_extend(cands, config.modes)
      return filter(cands, lead)
    elseif idx == 2 then
      return filter(vim.deepcopy(config.modes), lead)
    end
    return {}
  end)
  return ok and res or {}
end

function M.complete_target(lead, cmdline, pos)
  local ok, res = pcall(function()
    if arg_index(cmdline, pos) > 1 then
      return {}
    end
    return filter(picker.target_candidates(cached_list()), lead)
  end)
  return ok and res or {}
end

return M
