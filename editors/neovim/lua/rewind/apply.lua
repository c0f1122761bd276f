-- rewind.apply: what happens after the server answered a rewind or undo.
--
-- Neovim applies the server's WorkspaceEdit to buffers and leaves them
-- modified; the agent reads the disk, so the touched buffers are written. Then
-- the text is compared with the target, because Neovim may answer
-- `applied: true` after skipping a stale edit.
local config = require('rewind.config')
local events = require('rewind.events')
local log = require('rewind.log')
local plan_ui = require('rewind.plan')
local util = require('rewind.util')

local M = {}

--- The record of the latest rewind or undo (see :help rewind-api).
M.last = { seq = 0 }
-- The latest conversation rewind that forked the agent's conversation:
-- { root = ..., command = 'claude --resume <id>' } (:RewindResume runs it).
M.last_resume = nil

local function encode_path(p)
  return (p:gsub("[^%w%-%._~/!$&'()*+,;=:@]", function(c)
    return string.format('%%%02X', c:byte())
  end))
end

--- The `rewind:` URI of a file in a snapshot.
function M.content_uri(snapshot, relpath)
  return 'rewind:/' .. snapshot .. '/' .. encode_path(relpath)
end

--- In a coroutine: the text of `relpath` in `snapshot`, or nil and an error.
function M.fetch(client, snapshot, relpath)
  local ok, res = pcall(util.request, client, 'rewind/content', { uri = M.content_uri(snapshot, relpath) }, 'rewind/content')
  if not ok then
    return nil, util.is_user_error(res) and res.msg or tostring(res)
  end
  if type(res) ~= 'table' or type(res.text) ~= 'string' then
    return nil, 'rewind/content answered without text'
  end
  return res.text
end

-- Writes a buffer without BufWritePre/FileWritePre autocommands, so that
-- format-on-save cannot change the restored bytes. BufWritePost still runs
-- (didSave to language servers, gitsigns, …).
local function write_buf(buf)
  local ei = vim.o.eventignore
  local extra = 'BufWritePre,FileWritePre'
  vim.o.eventignore = ei == '' and extra or (ei .. ',' .. extra)
  local ok, err = pcall(vim.api.nvim_buf_call, buf, function()
    vim.cmd('silent keepalt keepjumps write!')
  end)
  vim.o.eventignore = ei
  return ok, err
end

local function shown_in_window(buf)
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == buf then
      return true
    end
  end
  return false
end

local function changes_files(mode)
  return mode == nil or mode == 'code' or mode == 'both' or mode == 'revert'
end

-- Text edits cannot say "no final newline", "CRLF" or "BOM": when a buffer
-- holds the target's lines but not those, set 'eol', 'fileformat' and 'bomb'
-- to match. Never changes a line. Returns true when the buffer now matches.
local function repair_format(buf, want)
  local bom = want:sub(1, 3) == '\239\187\191'
  local body = bom and want:sub(4) or want
  local lines = util.split_lines(body)
  local have = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  if #lines == 0 then
    lines = { '' }
  end
  if not vim.deep_equal(lines, have) or vim.bo[buf].binary then
    return false
  end
  local bo = vim.bo[buf]
  local crlf = body:find('\r\n', 1, true) ~= nil
  local eol = body:sub(-1) == '\n'
  if body ~= '' then
    bo.fileformat = crlf and 'dos' or 'unix'
    bo.eol = eol
    if not eol then
      bo.fixeol = false
    end
  end
  bo.bomb = bom
  return util.buf_bytes(buf) == want
end

-- Compares buffers and disk with the target; returns a list of mismatches.
local function verify(client, root, plan, written)
  local mismatches = {}
  local snapshot = plan.target and util.str(plan.target.snapshot)
  for _, f in ipairs(plan_ui.files(plan)) do
    local abs = util.joinpath(root, f.path)
    if f.change == 'delete' then
      if util.uv.fs_lstat(abs) then
        mismatches[#mismatches + 1] = { path = f.path, where = 'disk', why = 'still exists' }
      end
    elseif f.binary ~= true and snapshot then
      local want, err = M.fetch(client, snapshot, f.path)
      if not want then
        log.warn('verify: no target content', f.path, err)
        mismatches[#mismatches + 1] = { path = f.path, where = 'check', why = 'target content unavailable: ' .. tostring(err) }
      else
        local buf = util.find_buf(abs)
        local loaded = buf and vim.api.nvim_buf_is_loaded(buf)
        if loaded and util.buf_bytes(buf) ~= want and repair_format(buf, want) then
          log.info('verify: fixed line endings of', f.path)
          if written[abs] and write_buf(buf) then
            written[abs] = true
          end
        end
        if loaded and util.buf_bytes(buf) ~= want then
          mismatches[#mismatches + 1] = { path = f.path, where = 'buffer', why = 'differs from the target' }
        end
        if not loaded or written[abs] or f.via == 'disk' or not vim.bo[buf].modified then
          local have = util.read_file(abs)
          if have ~= want then
            mismatches[#mismatches + 1] = {
              path = f.path,
              where = 'disk',
              why = have and 'differs from the target' or 'missing',
            }
          end
        end
      end
    elseif f.binary == true and not util.uv.fs_lstat(abs) then
      mismatches[#mismatches + 1] = { path = f.path, where = 'disk', why = 'missing' }
    end
  end
  return mismatches
end

local function describe_mismatches(list)
  local parts = {}
  for _, m in ipairs(list) do
    parts[#parts + 1] = string.format('%s (%s: %s)', m.path, m.where, m.why)
  end
  return table.concat(parts, ', ')
end

--- In a coroutine: finishes a rewind or undo. `op` is "rewind" or "undo",
--- `result` the server's {applied, failureReason, entry, plan}, `tracker`
--- from client.track(). Writes, verifies, notifies; returns the record.
function M.finish(client, root, op, result, tracker, mode)
  tracker.finish()
  events.invalidate(root)
  result = type(result) == 'table' and result or {}
  local plan = type(result.plan) == 'table' and result.plan or {}
  mode = plan.mode or mode
  local rec = {
    seq = M.last.seq + 1,
    op = op,
    root = root,
    mode = mode,
    applied = result.applied == true,
    reason = util.str(result.failureReason),
    entry = result.entry,
    plan = plan,
    conversation = type(result.conversation) == 'table' and result.conversation or nil,
    written = {},
    mismatches = {},
    write_errors = {},
  }
  local cfg = config.get()
  local what = op == 'undo' and 'Undo' or op == 'revert' and 'Revert' or 'Rewind'

  if not rec.applied then
    local msg = what .. ' refused: ' .. (rec.reason or tracker.messages[1] or 'the server gave no reason')
    if #tracker.order > 0 then
      msg = msg .. '. Some buffers may have been edited: ' .. table.concat(tracker.order, ', ')
    end
    util.notify(msg, vim.log.levels.WARN)
    M.last = rec
    events.fire('RewindApplied', { op = op, applied = false, reason = rec.reason })
    return rec
  end

  local files = plan_ui.files(plan)
  -- Buffers of files the server wrote itself are stale: reload unmodified ones.
  for _, f in ipairs(files) do
    if f.via == 'disk' and f.change ~= 'delete' then
      local buf = util.find_buf(util.joinpath(root, f.path))
      if buf and vim.api.nvim_buf_is_loaded(buf) and not vim.bo[buf].modified then
        pcall(vim.api.nvim_buf_call, buf, function()
          vim.cmd('silent! edit!')
        end)
      end
    end
  end

  -- Write what the edit touched.
  local written = {}
  if cfg.write_after_rewind and changes_files(mode) then
    local paths, seen = {}, {}
    for _, p in ipairs(tracker.order) do
      if not seen[p] then
        seen[p] = true
        paths[#paths + 1] = p
      end
    end
    for _, f in ipairs(files) do
      local p = util.joinpath(root, f.path)
      if f.change ~= 'delete' and not seen[p] then
        seen[p] = true
        paths[#paths + 1] = p
      end
    end
    for _, p in ipairs(paths) do
      local buf = util.find_buf(p)
      if buf and vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].modified then
        local ok, err = write_buf(buf)
        if ok then
          written[p] = true
          rec.written[#rec.written + 1] = p
        else
          rec.write_errors[#rec.write_errors + 1] = p .. ': ' .. tostring(err)
        end
      end
    end
  end

  if cfg.verify_after_rewind and changes_files(mode) then
    rec.mismatches = verify(client, root, plan, written)
  end

  -- Buffers the edit had to load for files that were not open: put them back.
  for _, p in ipairs(tracker.order) do
    local before = tracker.touched[p]
    local buf = util.find_buf(p)
    if before and not before.loaded and buf and vim.api.nvim_buf_is_loaded(buf)
      and not vim.bo[buf].modified and not shown_in_window(buf) then
      pcall(vim.api.nvim_buf_delete, buf, { unload = before.existed })
    end
  end

  local target = plan_ui.target_name(plan.target)
  local msg
  if op == 'undo' then
    msg = 'Undid the last rewind: ' .. plan_ui.summary(plan) .. ' restored'
  elseif op == 'revert' then
    msg = 'Reverted ' .. target .. ', later changes kept: ' .. plan_ui.summary(plan) .. '. :RewindUndo undoes it.'
  elseif mode == 'conversation' then
    msg = 'Moved the conversation back to ' .. target
  elseif mode == 'summarize' then
    msg = 'Appended a summary of the turns after ' .. target
  else
    msg = 'Rewound to ' .. target .. ': ' .. plan_ui.summary(plan)
    if mode == 'both' then
      msg = msg .. '; conversation moved back'
    end
    msg = msg .. '. :RewindUndo undoes it.'
  end
  local conv = rec.conversation
  if conv and util.str(conv.agent) and util.str(conv.resume) then
    M.last_resume = { root = root, command = conv.resume }
    msg = msg .. ' The ' .. conv.agent .. ' conversation was forked: :RewindResume continues it (' .. conv.resume .. ').'
  elseif conv and util.str(conv.reason) then
    msg = msg .. ' Conversation: ' .. conv.reason .. '.'
  end
  local level = vim.log.levels.INFO
  if #rec.write_errors > 0 then
    msg = msg .. ' Could not write: ' .. table.concat(rec.write_errors, '; ') .. '.'
    level = vim.log.levels.WARN
  end
  if #rec.mismatches > 0 then
    msg = msg .. ' But after applying, these differ from the target: ' .. describe_mismatches(rec.mismatches)
      .. '. Compare with :RewindPreview.'
    level = vim.log.levels.WARN
  end
  util.notify(msg, level)
  M.last = rec
  events.fire('RewindApplied', {
    op = op,
    applied = true,
    mode = mode,
    written = rec.written,
    mismatches = #rec.mismatches,
  })
  return rec
end

return M
