-- rewind.revert: :RewindRevert [target] takes back the changes of one turn,
-- or of one step of a turn ("3.2"), and keeps everything after it
-- (rewind.revert). A dry run first: when later
-- changes overlap the turn (another turn, or `user`), it says which files and
-- who, and changes nothing; otherwise it asks (unless :RewindRevert!), then
-- the revert arrives as one WorkspaceEdit and the touched buffers are written,
-- like a rewind. :RewindUndo takes it back.
local apply = require('rewind.apply')
local client_mod = require('rewind.client')
local config = require('rewind.config')
local picker = require('rewind.picker')
local plan_ui = require('rewind.plan')
local protocol = require('rewind.protocol')
local util = require('rewind.util')

local M = {}

--- The last refused revert: {turn, reason, conflicts = {path -> {who}}}.
M.last_refused = nil

--- In a coroutine: asks for a turn or one of its steps (newest first, a page
--- at a time). Returns its target ("3", "3.2"), or nil.
local function pick_turn(client, root)
  return picker.pick_target(client, root, {
    prompt = 'Revert which turn or step? (its changes are taken back, later ones kept)',
    kind = 'rewind.revert',
    only_turns = true,
  })
end

--- In a coroutine: the :RewindRevert flow. opts: {target?, confirm?, paths?}.
function M.flow(opts)
  local client, root = client_mod.current()
  local target = opts.target or pick_turn(client, root)
  if not target then
    return
  end
  local args = { target = target, paths = opts.paths }
  local dry = util.exec(client, protocol.commands.revert, vim.tbl_extend('force', args, { dryRun = true }))
  dry = type(dry) == 'table' and dry or {}
  local plan = type(dry.plan) == 'table' and dry.plan or {}
  -- The turn and each file in the server's words: "turn 3 (fix auth)", "M a.txt  (conflict: …)".
  local name = plan_ui.target_name(plan.target)
  local conflicts, lines = {}, {}
  for _, f in ipairs(util.list(plan.files)) do
    if f.conflict then
      conflicts[f.path] = util.list(f.overlaps)
      lines[#lines + 1] = tostring(f.line)
    end
  end
  if util.str(dry.failureReason) or #lines > 0 then
    M.last_refused = { turn = target, reason = dry.failureReason, conflicts = conflicts }
    util.notify(
      'Cannot revert ' .. name .. ': later changes overlap it in ' .. table.concat(lines, ', ') .. '. Nothing was changed.',
      vim.log.levels.WARN
    )
    return dry
  end
  local files = util.list(plan.files)
  if #files == 0 then
    util.notify('nothing to revert: ' .. name .. ' is already taken back')
    return dry
  end
  local ask = opts.confirm
  if ask == nil then
    ask = config.get().confirm
  end
  if ask then
    local names = {}
    for _, f in ipairs(files) do
      names[#names + 1] = f.path
    end
    local choice = util.select({ 'Revert', 'Cancel' }, {
      prompt = string.format('Revert %s? %d file(s) change (%s); later changes are kept', name, #files, table.concat(names, ', ')),
      kind = 'rewind.confirm',
    })
    if choice ~= 'Revert' then
      util.notify('revert cancelled')
      return dry
    end
  end
  local tracker = client_mod.track(client)
  local ok, result = pcall(util.exec, client, protocol.commands.revert, args)
  if not ok then
    tracker.finish()
    error(result, 0)
  end
  return apply.finish(client, root, 'revert', result, tracker, 'code')
end

return M
