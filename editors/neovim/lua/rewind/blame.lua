-- rewind.blame: :RewindBlame toggles virtual text at the end of each line an
-- agent turn wrote and nobody changed since: the turn's title and age, as the
-- server wrote them ("Turn 3: fix auth · 5m ago", rewind.blame); when one step
-- (tool call) of the turn wrote the line, the step's title instead, as the
-- server's hover names it ("turn 3, step 2: Edit a.txt · 5m ago"). Refreshed
-- on rewind/didChange, when a buffer's text changes, and once a minute in the
-- buffers shown (the ages); an answer for a text the buffer has left is dropped.
local client_mod = require('rewind.client')
local log = require('rewind.log')
local protocol = require('rewind.protocol')
local util = require('rewind.util')

local M = {}

M.ns = vim.api.nvim_create_namespace('rewind_blame')
M.enabled = false

-- buf -> { lines = {line0 -> turn}, steps = {line0 -> step}, tick = changedtick shown, pending = timer }
local state = {}
local attached = {}

local DEBOUNCE_MS = 300

--- The step of its turn that wrote a range's lines, 0 when none did (a turn
--- without tool calls, or a change between them): the turn stands for them.
local function step_of(r)
  local step = tonumber(r.step) or 0
  if step > 0 and type(r.stepTarget) == 'string' and r.stepTarget ~= '' then
    return step
  end
  return 0
end

local function note(r)
  local title = r.title
  local step = step_of(r)
  if step > 0 then
    title = (type(r.stepTitle) == 'string' and r.stepTitle ~= '') and r.stepTitle
      or ('turn ' .. tostring(r.turn) .. ', step ' .. step)
  end
  return tostring(title) .. ' · ' .. tostring(r.age)
end

--- The note after the lines of a blame range (pure: tested directly).
M.note = note

local function clear(buf)
  if vim.api.nvim_buf_is_valid(buf) then
    vim.api.nvim_buf_clear_namespace(buf, M.ns, 0, -1)
  end
  state[buf] = nil
end

--- The lines of buf shown as an agent's, {line (0-based) -> turn}.
function M.lines(buf)
  local s = state[buf or vim.api.nvim_get_current_buf()]
  return s and s.lines or {}
end

--- The lines of buf shown as a step's, {line (0-based) -> step of its turn}.
function M.steps(buf)
  local s = state[buf or vim.api.nvim_get_current_buf()]
  return s and s.steps or {}
end

--- Asks the server for the blame of buf and shows it (in a coroutine).
local function refresh_flow(buf)
  if not M.enabled or not vim.api.nvim_buf_is_loaded(buf) then
    return
  end
  local path = util.buf_path(buf)
  local root = path and client_mod.running_root_of(path)
  local client = root and client_mod.get(root)
  if not client or not client_mod.is_ready(client) then
    return
  end
  local tick = vim.api.nvim_buf_get_changedtick(buf)
  local res = util.exec(client, protocol.commands.blame, { uri = vim.uri_from_bufnr(buf) })
  if not M.enabled or not vim.api.nvim_buf_is_loaded(buf) or vim.api.nvim_buf_get_changedtick(buf) ~= tick then
    return -- the text moved on: a newer refresh is scheduled
  end
  vim.api.nvim_buf_clear_namespace(buf, M.ns, 0, -1)
  local lines, steps = {}, {}
  local count = vim.api.nvim_buf_line_count(buf)
  for _, r in ipairs(util.list(type(res) == 'table' and res.ranges)) do
    local text = note(r)
    local step = step_of(r)
    for line = tonumber(r.startLine) or 0, (tonumber(r.endLine) or 0) - 1 do
      if line < count then
        vim.api.nvim_buf_set_extmark(buf, M.ns, line, 0, { virt_text = { { text, 'Comment' } }, virt_text_pos = 'eol' })
        lines[line] = tonumber(r.turn)
        if step > 0 then
          steps[line] = step
        end
      end
    end
  end
  state[buf] = { lines = lines, steps = steps, tick = tick }
  log.debug('blame shown', path, lines)
  require('rewind.events').fire('RewindBlame', { buf = buf })
end

--- Refreshes one buffer now (asynchronously).
function M.refresh(buf)
  util.run_quiet(refresh_flow, buf)
end

-- Refresh shortly after the text stops changing.
local function schedule(buf)
  local s = state[buf] or {}
  state[buf] = s
  if s.pending then
    pcall(function()
      s.pending:stop()
      s.pending:close()
    end)
  end
  s.pending = vim.defer_fn(function()
    s.pending = nil
    M.refresh(buf)
  end, DEBOUNCE_MS)
end

local function attach(buf)
  if attached[buf] then
    return
  end
  attached[buf] = true
  vim.api.nvim_buf_attach(buf, false, {
    on_lines = function()
      if not M.enabled then
        attached[buf] = nil
        return true -- detach
      end
      vim.schedule(function()
        schedule(buf)
      end)
    end,
    on_detach = function()
      attached[buf] = nil
      state[buf] = nil
    end,
  })
end

local function file_buffers(root)
  local out = {}
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    local p = vim.api.nvim_buf_is_loaded(buf) and util.buf_path(buf)
    local r = p and client_mod.running_root_of(p)
    if r and (root == nil or r == root) then
      out[#out + 1] = buf
    end
  end
  return out
end

--- Refreshes every loaded buffer of `root` (nil: of every root); called on
--- rewind/didChange.
function M.refresh_root(root)
  if not M.enabled then
    return
  end
  for _, buf in ipairs(file_buffers(root)) do
    attach(buf)
    M.refresh(buf)
  end
end

local augroup
local stop_ages

--- :RewindBlame: shows the notes in every buffer of a running root, or hides them.
function M.toggle()
  M.enabled = not M.enabled
  if stop_ages then
    stop_ages()
    stop_ages = nil
  end
  if not M.enabled then
    for _, buf in ipairs(vim.api.nvim_list_bufs()) do
      clear(buf)
    end
    if augroup then
      vim.api.nvim_del_augroup_by_id(augroup)
      augroup = nil
    end
    util.notify('agent blame off')
    return
  end
  augroup = vim.api.nvim_create_augroup('rewind_blame', { clear = true })
  vim.api.nvim_create_autocmd('BufEnter', {
    group = augroup,
    callback = function(ev)
      if util.buf_path(ev.buf) then
        attach(ev.buf)
        M.refresh(ev.buf)
      end
    end,
  })
  M.refresh_root(nil)
  stop_ages = util.every(util.age_refresh_ms, function()
    for _, buf in ipairs(file_buffers(nil)) do
      if vim.fn.bufwinid(buf) ~= -1 then
        M.refresh(buf)
      end
    end
  end)
  util.notify('agent blame on: lines an agent turn wrote show the turn at the end')
end

return M
