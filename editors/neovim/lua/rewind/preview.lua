-- rewind.preview: a tab of vertical diffs, one file at a time: the current
-- buffer (left) against the target content (right). `]f` / `[f` move between
-- files, `q` in the target window closes the tab.
local client_mod = require('rewind.client')
local apply = require('rewind.apply')
local picker = require('rewind.picker')
local plan_ui = require('rewind.plan')
local protocol = require('rewind.protocol')
local util = require('rewind.util')

local M = {}

-- tabpage -> session {tab, left, right, root, client, target, plan, files, idx, mapped}
local sessions = {}
local group

local function valid_win(w)
  return w and vim.api.nvim_win_is_valid(w)
end

local function win_do(win, cmd)
  if valid_win(win) then
    pcall(vim.api.nvim_win_call, win, function()
      vim.cmd(cmd)
    end)
  end
end

local used_names = {}

local function scratch(s, name, lines, ft)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  local n, i = name, 1
  while used_names[n] and vim.api.nvim_buf_is_valid(used_names[n]) do
    i = i + 1
    n = name .. ' (' .. i .. ')'
  end
  if pcall(vim.api.nvim_buf_set_name, buf, n) then
    used_names[n] = buf
  end
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  vim.api.nvim_buf_set_var(buf, 'rewind_root', s.root)
  if ft and ft ~= '' then
    vim.bo[buf].filetype = ft
  end
  return buf
end

local function filetype_for(path, buf)
  if buf and vim.bo[buf].filetype ~= '' then
    return vim.bo[buf].filetype
  end
  if util.has('0.8') then
    local ok, ft = pcall(vim.filetype.match, { filename = path })
    if ok then
      return ft
    end
  end
  return nil
end

local function esc(s)
  return (tostring(s):gsub('%%', '%%%%'))
end

local function unmap(s)
  for buf in pairs(s.mapped) do
    if vim.api.nvim_buf_is_valid(buf) then
      for _, lhs in ipairs({ ']f', '[f' }) do
        pcall(vim.keymap.del, 'n', lhs, { buffer = buf })
      end
    end
  end
  s.mapped = {}
end

local function teardown(s)
  if sessions[s.tab] ~= s then
    return
  end
  sessions[s.tab] = nil
  win_do(s.left, 'diffoff')
  win_do(s.right, 'diffoff')
  unmap(s)
end

local function step(key, delta)
  local s = sessions[vim.api.nvim_get_current_tabpage()]
  if not s then
    pcall(vim.cmd, 'normal! ' .. key)
    return
  end
  local i = s.idx + delta
  if i < 1 or i > #s.files then
    vim.api.nvim_echo({ { 'rewind: no ' .. (delta > 0 and 'next' or 'previous') .. ' file', 'WarningMsg' } }, false, {})
    return
  end
  util.run(M.show, s, i)
end

local function map(s, buf, real)
  local o = { buffer = buf, nowait = true, silent = true }
  vim.keymap.set('n', ']f', function()
    step(']f', 1)
  end, vim.tbl_extend('force', o, { desc = 'rewind: next file' }))
  vim.keymap.set('n', '[f', function()
    step('[f', -1)
  end, vim.tbl_extend('force', o, { desc = 'rewind: previous file' }))
  if real then
    s.mapped[buf] = true
  else
    vim.keymap.set('n', 'q', function()
      M.close(s)
    end, vim.tbl_extend('force', o, { desc = 'rewind: close the preview' }))
  end
end

--- Closes a preview session's tab.
function M.close(s)
  teardown(s)
  if vim.api.nvim_tabpage_is_valid(s.tab) then
    vim.api.nvim_set_current_tabpage(s.tab)
    if not pcall(vim.cmd, 'tabclose') then
      vim.cmd('enew')
    end
  end
end

--- The session of a tab (for tests and statuslines), or nil.
function M.session(tab)
  return sessions[tab or vim.api.nvim_get_current_tabpage()]
end

--- In a coroutine: shows file `i` of the session.
function M.show(s, i)
  local f = s.files[i]
  local abs = util.joinpath(s.root, f.path)
  local lines
  if f.change == 'delete' then
    lines = {}
  elseif f.binary == true then
    lines = { '(binary file: not shown)' }
  else
    local text = s.contents[f.path]
    local err
    if text == nil then
      text, err = apply.fetch(s.client, s.snapshot, f.path)
      s.contents[f.path] = text
    end
    lines = text and util.split_lines(text) or { '(target content unavailable: ' .. tostring(err) .. ')' }
  end
  if sessions[s.tab] ~= s or not valid_win(s.left) or not valid_win(s.right) then
    return -- closed while the content was on its way
  end
  win_do(s.left, 'diffoff')
  win_do(s.right, 'diffoff')
  unmap(s)

  local lbuf
  if f.change == 'create' then
    lbuf = scratch(s, 'rewind://now/' .. f.path .. ' (does not exist)', {}, filetype_for(abs))
    map(s, lbuf, false)
  else
    lbuf = vim.fn.bufadd(abs)
    pcall(vim.fn.bufload, lbuf)
    vim.bo[lbuf].buflisted = true
    map(s, lbuf, true)
  end
  vim.api.nvim_win_set_buf(s.left, lbuf)
  local rbuf = scratch(s, 'rewind://' .. s.label .. '/' .. f.path, lines, filetype_for(abs, lbuf))
  map(s, rbuf, false)
  vim.api.nvim_win_set_buf(s.right, rbuf)
  s.idx = i
  s.buffers = { left = lbuf, right = rbuf }

  win_do(s.left, 'diffthis')
  win_do(s.right, 'diffthis')
  local pos = string.format('[%d/%d] %s %s', i, #s.files, f.change, tostring(f.what))
  vim.wo[s.left].statusline = ' now: ' .. esc(f.path) .. (f.change == 'create' and ' (does not exist)' or ' %m')
    .. '%=' .. esc(pos) .. ' '
  vim.wo[s.right].statusline = ' ' .. esc(s.label_long) .. ': ' .. esc(f.path)
    .. (f.change == 'delete' and ' (deleted by the rewind)' or '') .. '%=]f next  [f prev  q close '
  win_do(s.left, 'normal! gg')
  win_do(s.right, 'normal! gg')
  if vim.api.nvim_get_current_tabpage() == s.tab then
    vim.api.nvim_set_current_win(s.right)
  end
  vim.api.nvim_echo({ { string.format('rewind preview %d/%d: %s (%s)', i, #s.files, f.path, f.change), 'ModeMsg' } }, false, {})
end

--- In a coroutine: opens the preview tab for a plan.
function M.open(client, root, target, plan)
  local files = plan_ui.files(plan)
  local t = plan.target or {}
  local label
  if util.str(t.label) then
    label = '@' .. t.label
  elseif tonumber(t.step) and tonumber(t.step) > 0 and tonumber(t.turn) then
    label = 'step-' .. t.turn .. '.' .. t.step
  elseif tonumber(t.turn) and tonumber(t.turn) > 0 then
    label = 'turn-' .. t.turn
  else
    label = tostring(target):gsub('[^%w@:~%-]', '_')
  end
  vim.cmd('tabnew')
  local placeholder = vim.api.nvim_get_current_buf()
  vim.bo[placeholder].bufhidden = 'wipe'
  local s = {
    tab = vim.api.nvim_get_current_tabpage(),
    left = vim.api.nvim_get_current_win(),
    root = root,
    client = client,
    target = target,
    plan = plan,
    snapshot = util.str(t.snapshot),
    files = files,
    label = label,
    label_long = plan_ui.target_name(t),
    idx = 0,
    contents = {},
    mapped = {},
  }
  vim.cmd('rightbelow vsplit')
  s.right = vim.api.nvim_get_current_win()
  sessions[s.tab] = s
  M.show(s, 1)
  return s
end

--- In a coroutine: the :RewindPreview flow. opts: {target?, paths?}.
function M.flow(opts)
  opts = opts or {}
  local client, root = client_mod.current()
  local target = opts.target
  if not target then
    target = picker.pick_target(client, root, 'Preview the rewind to')
    if not target then
      return
    end
  end
  local plan = util.exec(client, protocol.commands.preview, { target = target, mode = 'code', paths = opts.paths })
  if type(plan) ~= 'table' then
    util.fail('rewind.preview returned no plan for ' .. target)
  end
  if #plan_ui.files(plan) == 0 then
    util.notify('nothing would change: the files already match ' .. plan_ui.target_name(plan.target))
    return
  end
  if not util.str(plan.target and plan.target.snapshot) then
    util.fail('the plan for ' .. target .. ' names no snapshot; cannot show the target content')
  end
  return M.open(client, root, target, plan)
end

group = vim.api.nvim_create_augroup('rewind_preview', { clear = true })
vim.api.nvim_create_autocmd('WinClosed', {
  group = group,
  callback = function(ev)
    local w = tonumber(ev.match)
    for _, s in pairs(sessions) do
      if w == s.left or w == s.right then
        teardown(s)
      end
    end
  end,
})
vim.api.nvim_create_autocmd('TabClosed', {
  group = group,
  callback = function()
    for tab, s in pairs(sessions) do
      if not vim.api.nvim_tabpage_is_valid(tab) then
        sessions[tab] = nil
        unmap(s)
      end
    end
  end,
})

return M
