-- rewind.plan: a plan (docs/PROTOCOL.md, "The plan") in a float or an echo. Its words — the
-- target's name, each file's line — are the server's (docs/PROTOCOL.md, "Words").
local util = require('rewind.util')

local M = {}

local verbs = { modify = 'modified', create = 'created', delete = 'deleted' }

--- The target's name, as the server wrote it: "turn 3 (refactor auth)", "checkpoint @before-jwt".
function M.target_name(t)
  return type(t) == 'table' and util.str(t.title) or 'the target'
end

--- The files a plan changes (entries with a known change).
function M.files(plan)
  local out = {}
  for _, f in ipairs(util.list(plan and plan.files)) do
    if type(f) == 'table' and verbs[f.change] then
      out[#out + 1] = f
    end
  end
  return out
end

--- Files in conflict.
function M.conflicts(plan)
  local out = {}
  for _, f in ipairs(M.files(plan)) do
    if f.conflict == true then
      out[#out + 1] = f
    end
  end
  return out
end

--- "3 files (1 modified, 1 created, 1 deleted)".
function M.summary(plan)
  local files = M.files(plan)
  local counts = { modify = 0, create = 0, delete = 0 }
  for _, f in ipairs(files) do
    counts[f.change] = counts[f.change] + 1
  end
  local parts = {}
  for _, c in ipairs({ 'modify', 'create', 'delete' }) do
    if counts[c] > 0 then
      parts[#parts + 1] = counts[c] .. ' ' .. verbs[c]
    end
  end
  local n = #files
  local s = n .. (n == 1 and ' file' or ' files')
  if #parts > 0 then
    s = s .. ' (' .. table.concat(parts, ', ') .. ')'
  end
  return s
end

local function mode_line(plan)
  local mode = plan.mode or 'code'
  local entries = plan.conversation and tonumber(plan.conversation.entriesAffected) or 0
  if mode == 'conversation' or mode == 'both' then
    return 'Conversation: ' .. entries .. ' entr' .. (entries == 1 and 'y moves' or 'ies move') .. ' to an abandoned branch'
  elseif mode == 'summarize' then
    return 'Conversation: a summary of ' .. entries .. ' entr' .. (entries == 1 and 'y' or 'ies') .. ' is appended; files stay'
  end
  return nil
end

--- The lines of a plan, for a float or a buffer. `max_diff` limits the diff.
function M.lines(plan, max_diff)
  local lines = {}
  local mode = plan.mode or 'code'
  lines[#lines + 1] = 'Rewind to ' .. M.target_name(plan.target) .. '  —  mode: ' .. mode
  lines[#lines + 1] = ''
  local files = M.files(plan)
  if mode == 'code' or mode == 'both' or mode == 'plan' then
    if #files == 0 then
      lines[#lines + 1] = 'No file changes: the workspace already matches the target.'
    else
      lines[#lines + 1] = 'Files: ' .. M.summary(plan)
      for _, f in ipairs(files) do
        lines[#lines + 1] = '  ' .. tostring(f.line)
      end
    end
  end
  for _, s in ipairs(util.list(plan.skipped)) do
    if type(s) == 'table' then
      lines[#lines + 1] = '  skipped ' .. tostring(s.path) .. ': ' .. tostring(s.reason)
    end
  end
  local ml = mode_line(plan)
  if ml then
    lines[#lines + 1] = ml
  end
  local conflicts = M.conflicts(plan)
  if #conflicts > 0 then
    lines[#lines + 1] = ''
    lines[#lines + 1] = string.format(
      '! %d file%s changed since rewind-lsp last recorded %s: a rewind refuses unless forced.',
      #conflicts,
      #conflicts == 1 and '' or 's',
      #conflicts == 1 and 'it' or 'them'
    )
  end
  local diff = util.str(plan.diff)
  if diff and max_diff ~= 0 then
    lines[#lines + 1] = ''
    local dl = util.split_lines(diff)
    local limit = max_diff or #dl
    for i = 1, math.min(#dl, limit) do
      lines[#lines + 1] = dl[i]
    end
    if #dl > limit then
      lines[#lines + 1] = string.format('… %d more diff lines (see :RewindPreview)', #dl - limit)
    end
  end
  return lines
end

--- Shows the plan in a centered float; returns a function that closes it.
function M.show_float(plan)
  local lines = M.lines(plan, 200)
  local width = 20
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  width = math.min(width + 2, math.max(20, vim.o.columns - 6))
  local height = math.min(#lines, math.max(3, vim.o.lines - 8))
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].filetype = 'diff'
  local win = vim.api.nvim_open_win(buf, false, {
    relative = 'editor',
    row = math.max(0, math.floor((vim.o.lines - height) / 2) - 2),
    col = math.max(0, math.floor((vim.o.columns - width) / 2)),
    width = width,
    height = height,
    style = 'minimal',
    border = 'rounded',
    focusable = false,
    zindex = 40, -- below pickers (Telescope, fzf-lua, snacks), which ask the question
  })
  vim.wo[win].wrap = false
  vim.cmd('redraw')
  return function()
    if vim.api.nvim_win_is_valid(win) then
      vim.api.nvim_win_close(win, true)
    end
  end
end

--- Echoes the plan's summary (no diff); returns a no-op closer.
function M.echo(plan)
  local chunks = {}
  for i, l in ipairs(M.lines(plan, 0)) do
    local hl = (i == 1 and 'Title') or (l:match('^!') and 'WarningMsg') or 'Normal'
    chunks[#chunks + 1] = { l .. '\n', hl }
  end
  vim.api.nvim_echo(chunks, false, {})
  return function() end
end

--- Shows a plan in the configured style ("float" or "echo").
function M.show(plan, style)
  if style == 'echo' then
    return M.echo(plan)
  end
  return M.show_float(plan)
end

return M
