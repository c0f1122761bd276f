-- rewind.logview: the :RewindLog scratch buffer (filetype=rewindlog).
--
-- Lists the latest page of turns (newest first; `turns_per_page`, or the
-- count of `:RewindLog N`) with their files and agent session, and under each
-- its steps (the agent's tool calls that changed files) with theirs, then the
-- checkpoints, rewinds and kept reports recorded among them. When older turns
-- were left out, the line after the turns, "Older turns…", lists the page
-- before with <CR>. <CR> previews the turn (or step, file, checkpoint) under
-- the cursor; `r` rewinds to it, `u` undoes the last rewind, `R` refreshes, `q`
-- closes. The buffer refreshes itself on `rewind/didChange`, and once a minute
-- while it is in a window, so the ages the server wrote stay true; it lists
-- again as many turns as it shows, so the pages loaded stay.
local client_mod = require('rewind.client')
local config = require('rewind.config')
local paging = require('rewind.paging')
local picker = require('rewind.picker')
local steps = require('rewind.steps')
local util = require('rewind.util')

local M = {}

-- buf -> { root, client, limit (turns listed), list (what is shown),
--          targets = { [lnum] = {target, step?, paths?} or {older = before} } }
local views = {}
-- Stops the timer that refreshes the views' ages (nil while there are none).
local stop_ages

local HELP = '<CR> preview  r rewind  u undo  R refresh  q close'

--- The lines of a list result and the target of each line, in the server's
--- words (titles, ages, each file's line, session labels, an agent's rewind's
--- sentence). The line that lists older turns has the target {older = before}.
function M.render(root, list)
  local lines, targets = {}, {}
  local turns = util.list(list.turns)
  local function add(line, target)
    lines[#lines + 1] = line
    if target then
      targets[#lines] = target
    end
  end
  local before = paging.older_before(list)
  add(string.format('Rewind log: %s  (%d turn%s%s)', root, #turns, #turns == 1 and '' or 's',
    before and ', older ones below them' or ''))
  add(HELP)
  add('')
  if #turns == 0 then
    add('No turns recorded yet.')
  end
  for i = #turns, 1, -1 do
    local t = turns[i]
    if type(t) == 'table' then
      local target = { target = tostring(t.turn) }
      local who = util.str(t.sessionLabel)
      add(string.format(
        '%s  %s  %s%s%s',
        util.truncate(t.title, 80),
        tostring(t.age),
        util.str(t.source) or '',
        util.str(t.ended) and '' or '  [open]',
        who and ('  [' .. who .. ']') or ''
      ), target)
      if util.str(t.summary) then
        add('    ' .. util.truncate(t.summary, 90), target)
      end
      for _, c in ipairs(util.list(t.changed)) do
        if type(c) == 'table' then
          add('    ' .. tostring(c.line), { target = target.target, paths = { c.path } })
        end
      end
      -- Its steps, indented under it, each with the files it changed: <CR> previews the rewind
      -- to just before the step (that file only, on a file's line).
      for _, s in ipairs(steps.of(t)) do
        add('    ' .. steps.line(s, 76), { target = s.target, step = true })
        for _, c in ipairs(util.list(s.changed)) do
          if type(c) == 'table' then
            add('        ' .. tostring(c.line), { target = s.target, step = true, paths = { c.path } })
          end
        end
      end
    end
  end
  if before then
    add(string.format('Older turns…  (before turn %d; <CR> lists up to %d more)', before, config.get().turns_per_page),
      { older = before })
  end
  local cps = util.list(list.checkpoints)
  if #cps > 0 then
    add('')
    add('Checkpoints')
    for i = #cps, 1, -1 do
      local c = cps[i]
      if type(c) == 'table' then
        local label = util.str(c.label)
        add(string.format('  %-8s %s', tostring(c.age), tostring(c.title)),
          { target = label and ('@' .. label) or tostring(c.entry) })
      end
    end
  end
  local rws = util.list(list.rewinds)
  if #rws > 0 then
    add('')
    add('Rewinds')
    for i = #rws, 1, -1 do
      local r = rws[i]
      if type(r) == 'table' then
        add(string.format('  %-8s %s', tostring(r.age), tostring(r.title)))
        if util.str(r.message) then
          add('    ' .. r.message)
        end
      end
    end
  end
  local sums = util.list(list.summaries)
  if #sums > 0 then
    add('')
    add('Reports')
    for i = #sums, 1, -1 do
      local s = sums[i]
      if type(s) == 'table' then
        add(string.format('  %-8s %s', tostring(s.age), tostring(s.title)))
        for _, l in ipairs(vim.split(util.str(s.report) or '', '\n', { plain = true })) do
          add('    ' .. l)
        end
      end
    end
  end
  return lines, targets
end

local function set_lines(buf, lines)
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
end

--- In a coroutine: fetches the list and redraws a log buffer.
function M.redraw(buf)
  local v = views[buf]
  if not v or not vim.api.nvim_buf_is_valid(buf) then
    views[buf] = nil
    return
  end
  local client = client_mod.get(v.root)
  if not client then
    client = client_mod.ensure(v.root)
    client_mod.wait_ready(client)
  end
  v.client = client
  local list = picker.list(client, v.root, { limit = v.limit })
  if not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  M.show(buf, list)
end

--- Shows `list` in the log buffer `buf`.
function M.show(buf, list)
  local v = views[buf]
  local lines, targets = M.render(v.root, list)
  v.list, v.targets = list, targets
  set_lines(buf, lines)
  v.generation = (v.generation or 0) + 1
end

--- In a coroutine: lists the page of turns before the oldest one the log
--- buffer shows and adds it below them; the cursor goes to its newest turn.
function M.older(buf)
  local v = views[buf]
  if not v or not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  local shown = v.list
  local before = shown and paging.older_before(shown)
  if not before then
    util.notify('no older turns: the log lists the first one')
    return
  end
  -- A refresh meanwhile lists these pages as well.
  local limit = v.limit
  v.limit = limit + config.get().turns_per_page
  local ok, older = pcall(picker.list, client_mod.get(v.root) or v.client, v.root, { before = before })
  if not ok then
    v.limit = limit
    error(older, 0)
  end
  if not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  if v.list ~= shown then
    M.redraw(buf)
  else
    M.show(buf, paging.append_older(shown, older))
  end
  local newest = util.list(older.turns)[#util.list(older.turns)]
  local win = vim.fn.bufwinid(buf)
  if newest and win ~= -1 then
    for lnum = 1, vim.api.nvim_buf_line_count(buf) do
      local t = v.targets[lnum]
      if t and t.target == tostring(newest.turn) and not t.paths then
        vim.api.nvim_win_set_cursor(win, { lnum, 0 })
        break
      end
    end
  end
end

--- Refreshes the log buffers of `root` (all when root is nil) that are in a
--- window; hidden ones refresh when shown again. Failures go to the log file:
--- nobody asked for this refresh.
function M.refresh(root)
  for buf, v in pairs(views) do
    if root == nil or v.root == root then
      if vim.fn.bufwinid(buf) ~= -1 then
        util.run_quiet(M.redraw, buf)
      else
        v.stale = true
      end
    end
  end
end

--- The target under the cursor of a log buffer, or nil.
function M.target_at(buf, lnum)
  local v = views[buf]
  return v and v.targets[lnum] or nil
end

--- The view state of a log buffer (for tests), or nil.
function M.view(buf)
  return views[buf]
end

local function find_view(root)
  for buf, v in pairs(views) do
    if v.root == root and vim.api.nvim_buf_is_valid(buf) then
      return buf
    end
  end
  return nil
end

local function under_cursor()
  local buf = vim.api.nvim_get_current_buf()
  local t = M.target_at(buf, vim.api.nvim_win_get_cursor(0)[1])
  if t and t.older then
    t = nil
  end
  if not t then
    vim.api.nvim_echo({ { 'rewind: no turn on this line', 'WarningMsg' } }, false, {})
  end
  return t
end

local function setup_buffer(buf, root)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.api.nvim_buf_set_var(buf, 'rewind_root', root)
  pcall(vim.api.nvim_buf_set_name, buf, 'rewind://log/' .. root)
  local o = { buffer = buf, nowait = true, silent = true }
  local function map(lhs, fn, desc)
    vim.keymap.set('n', lhs, fn, vim.tbl_extend('force', o, { desc = 'rewind: ' .. desc }))
  end
  map('<CR>', function()
    local o = M.target_at(buf, vim.api.nvim_win_get_cursor(0)[1])
    if o and o.older then
      util.run(M.older, buf)
      return
    end
    local t = under_cursor()
    if t then
      util.run(require('rewind.preview').flow, { target = t.target, paths = t.paths })
    end
  end, 'preview the turn or step under the cursor, or list the older turns')
  map('r', function()
    local t = under_cursor()
    if t then
      util.run(require('rewind.commands').rewind_flow, { target = t.target })
    end
  end, 'rewind to the turn or step under the cursor')
  map('u', function()
    util.run(require('rewind.commands').undo_flow)
  end, 'undo the last rewind')
  map('R', function()
    util.run(M.redraw, buf)
  end, 'refresh')
  map('q', function()
    if #vim.api.nvim_list_wins() > 1 then
      vim.cmd('close')
    else
      vim.cmd('bdelete')
    end
  end, 'close')
  vim.bo[buf].filetype = 'rewindlog'
  vim.api.nvim_create_autocmd('BufWinEnter', {
    buffer = buf,
    callback = function()
      if views[buf] and views[buf].stale then
        views[buf].stale = false
        util.run_quiet(M.redraw, buf)
      end
    end,
  })
  vim.api.nvim_create_autocmd('BufWipeout', {
    buffer = buf,
    once = true,
    callback = function()
      views[buf] = nil
      if next(views) == nil and stop_ages then
        stop_ages()
        stop_ages = nil
      end
    end,
  })
end

-- Refreshes the views in a window every util.age_refresh_ms (the hidden
-- ones when shown again), while there are views.
local function keep_ages_fresh()
  if stop_ages then
    return
  end
  stop_ages = util.every(util.age_refresh_ms, function()
    if next(views) == nil then
      stop_ages()
      stop_ages = nil
      return
    end
    M.refresh(nil)
  end)
end

--- In a coroutine: the :RewindLog flow. `count`: list the latest `count`
--- turns; without it a new log lists `turns_per_page` of them and an open one
--- the turns it shows.
function M.flow(count)
  local client, root = client_mod.current()
  local buf = find_view(root)
  if not buf then
    buf = vim.api.nvim_create_buf(true, true)
    views[buf] = { root = root, client = client, targets = {}, limit = config.get().turns_per_page }
    setup_buffer(buf, root)
    keep_ages_fresh()
  end
  views[buf].client = client
  if count then
    views[buf].limit = count
  end
  M.redraw(buf)
  local win = vim.fn.bufwinid(buf)
  if win ~= -1 then
    vim.api.nvim_set_current_win(win)
  else
    local cur = vim.api.nvim_get_current_buf()
    local reuse = vim.api.nvim_buf_get_name(cur) == '' and not vim.bo[cur].modified
      and vim.api.nvim_buf_line_count(cur) <= 1 and vim.api.nvim_buf_get_lines(cur, 0, 1, false)[1] == ''
    if not reuse then
      vim.cmd('botright split')
    end
    vim.api.nvim_win_set_buf(0, buf)
  end
  vim.api.nvim_win_set_cursor(0, { math.min(4, vim.api.nvim_buf_line_count(buf)), 0 })
  return buf
end

return M
