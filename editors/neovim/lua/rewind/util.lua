-- rewind.util: version shims, paths, text, user-facing errors and a small
-- coroutine helper so that command flows read top to bottom.
local log = require('rewind.log')

local M = {}

M.uv = vim.uv or vim.loop

--- True when Neovim is at least version `v` ("0.8", "0.11", …).
function M.has(v)
  return vim.fn.has('nvim-' .. v) == 1
end

-- ---------------------------------------------------------------------------
-- Errors that are meant for the user.

local UserError = {}
UserError.__index = UserError
UserError.__tostring = function(e)
  return e.msg
end

--- Raises an error that is shown to the user as `msg`, without a traceback.
function M.fail(msg, level)
  error(setmetatable({ msg = msg, level = level or vim.log.levels.ERROR }, UserError), 0)
end

function M.is_user_error(e)
  return getmetatable(e) == UserError
end

--- Shows `msg` to the user, prefixed with "rewind: ".
function M.notify(msg, level)
  level = level or vim.log.levels.INFO
  if level >= vim.log.levels.WARN then
    log.warn('notify:', msg)
  else
    log.info('notify:', msg)
  end
  vim.notify('rewind: ' .. msg, level, { title = 'rewind' })
end

local function first_line(s)
  s = tostring(s)
  return (s:match('^[^\n]*'))
end

--- Reports an error caught at a command boundary: user errors as their
--- message, anything else as one line pointing at the log file.
function M.report(err, co)
  if M.is_user_error(err) then
    M.notify(err.msg, err.level)
    return
  end
  local tb = co and debug.traceback(co, tostring(err)) or debug.traceback(tostring(err), 2)
  log.error(tb)
  M.notify(
    'internal error: ' .. first_line(err) .. ' (details in ' .. log.path() .. ')',
    vim.log.levels.ERROR
  )
end

--- Calls fn(...) and reports any error instead of raising it.
function M.guard(fn, ...)
  local args = { n = select('#', ...), ... }
  local ok, err = xpcall(function()
    return fn(unpack(args, 1, args.n))
  end, function(e)
    if M.is_user_error(e) then
      return e
    end
    log.error(debug.traceback(tostring(e), 2))
    return e
  end)
  if not ok then
    if M.is_user_error(err) then
      M.notify(err.msg, err.level)
    else
      M.notify(
        'internal error: ' .. first_line(err) .. ' (details in ' .. log.path() .. ')',
        vim.log.levels.ERROR
      )
    end
  end
  return ok
end

-- ---------------------------------------------------------------------------
-- Coroutines: a flow runs in a coroutine and awaits callbacks.

local quiet
local function resume(co, ...)
  local ok, err = coroutine.resume(co, ...)
  if not ok then
    if quiet[co] then
      log.warn('background:', M.is_user_error(err) and err.msg or debug.traceback(co, tostring(err)))
    else
      M.report(err, co)
    end
  end
end

--- Runs fn in a new coroutine; errors are reported to the user.
function M.run(fn, ...)
  resume(coroutine.create(fn), ...)
end

quiet = setmetatable({}, { __mode = 'k' })

--- Runs fn in a new coroutine; errors only go to the log file (for work
--- nobody asked for, like refreshing a view).
function M.run_quiet(fn, ...)
  local co = coroutine.create(fn)
  quiet[co] = true
  resume(co, ...)
end

--- Inside a coroutine: calls start(cb) and waits until cb is called; returns
--- cb's arguments. Works when cb is called synchronously, too.
function M.await(start)
  local co = coroutine.running()
  assert(co, 'rewind: await outside a coroutine')
  local done, waiting, res = false, false, nil
  start(function(...)
    if done then
      return
    end
    done = true
    res = { n = select('#', ...), ... }
    if waiting then
      if vim.in_fast_event() then
        vim.schedule(function()
          resume(co)
        end)
      else
        resume(co)
      end
    end
  end)
  if not done then
    waiting = true
    coroutine.yield()
  end
  return unpack(res, 1, res.n)
end

--- vim.ui.select, awaited. Returns the chosen item and index, or nil.
function M.select(items, opts)
  return M.await(function(cb)
    vim.ui.select(items, opts, cb)
  end)
end

--- vim.ui.input, awaited. Returns the text, or nil when cancelled.
function M.input(opts)
  return M.await(function(cb)
    vim.ui.input(opts, cb)
  end)
end

-- ---------------------------------------------------------------------------
-- LSP client shims.

--- Calls a client method: `client:name(...)` on 0.11+, `client.name(...)` before.
function M.client_call(client, name, ...)
  if M.has('0.11') then
    return client[name](client, ...)
  end
  return client[name](...)
end

function M.client_stopped(client)
  return client == nil or M.client_call(client, 'is_stopped')
end

--- Sends a request on `client` and waits for the answer (in a coroutine).
--- Returns the result; a JSON-RPC error becomes a user error naming `what`.
function M.request(client, method, params, what)
  if M.client_stopped(client) then
    M.fail('the rewind-lsp server is not running (see :checkhealth rewind)')
  end
  log.debug('request', method, params)
  local err, result = M.await(function(cb)
    -- bufnr nil: Neovim flushes pending didChange of every buffer first, so
    -- the server sees the unsaved text of dirty buffers.
    local ok = M.client_call(client, 'request', method, params, function(e, r)
      cb(e, r)
    end, nil)
    if not ok then
      cb({ message = 'the rewind-lsp server has stopped' })
    end
  end)
  log.debug('response', method, err, result)
  if err then
    local msg = type(err) == 'table' and (err.message or vim.inspect(err)) or tostring(err)
    M.fail((what or method) .. ' failed: ' .. msg)
  end
  return result
end

--- Runs a `workspace/executeCommand` command with one object argument.
function M.exec(client, command, arg)
  if arg == nil or next(arg) == nil then
    arg = vim.empty_dict()
  end
  return M.request(client, 'workspace/executeCommand', {
    command = command,
    arguments = { arg },
  }, command)
end

--- Returns x when it is a list, else an empty table (JSON null arrives as
--- nil or vim.NIL depending on where it sits).
function M.list(x)
  if type(x) == 'table' then
    return x
  end
  return {}
end

--- Returns s when it is a non-empty string, else nil.
function M.str(s)
  if type(s) == 'string' and s ~= '' then
    return s
  end
  return nil
end

-- ---------------------------------------------------------------------------
-- Paths.

M.is_windows = vim.fn.has('win32') == 1

--- `p` with / separators and an upper-case drive letter on Windows, where
--- Neovim and the server may spell one path C:\x, c:/x or C:/x; unchanged
--- elsewhere. `windows` overrides the system (tests).
function M.normpath(p, windows)
  if windows == nil then
    windows = M.is_windows
  end
  if not windows then
    return p
  end
  p = p:gsub('\\', '/')
  p = p:gsub('^(%a):', function(d)
    return d:upper() .. ':'
  end)
  return p
end

--- Whether `p` is a file system's root: / or, on Windows, a drive's (C:/).
local function is_top(p)
  return p == '/' or p:match('^%a:/$') ~= nil
end

--- Absolute, normalized path without a trailing slash.
function M.abspath(p)
  p = M.normpath(vim.fn.fnamemodify(p, ':p'))
  if not is_top(p) then
    p = p:gsub('/+$', '')
  end
  return p
end

--- `path` relative to `root` (with / separators), or nil when it is not
--- inside it. On Windows the comparison ignores case and separators, as
--- its file systems do.
function M.relpath(root, path, windows)
  if windows == nil then
    windows = M.is_windows
  end
  root, path = M.normpath(root, windows), M.normpath(path, windows)
  local function same(a, b)
    return a == b or (windows and a:lower() == b:lower())
  end
  if same(path, root) then
    return ''
  end
  local prefix = is_top(root) and root or root .. '/'
  if same(path:sub(1, #prefix), prefix) then
    return path:sub(#prefix + 1)
  end
  return nil
end

function M.joinpath(root, rel)
  return is_top(root) and root .. rel or root .. '/' .. rel
end

--- The nearest directory at or above `dir` holding one of `markers`.
function M.find_marker_root(dir, markers)
  while dir and dir ~= '' do
    for _, m in ipairs(markers) do
      if M.uv.fs_stat(M.joinpath(dir, m)) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      return nil
    end
    dir = parent
  end
  return nil
end

--- The file a buffer edits (absolute path), or nil for scratch buffers.
function M.buf_path(buf)
  if not vim.api.nvim_buf_is_valid(buf) or vim.bo[buf].buftype ~= '' then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(buf)
  if name == '' or name:match('^%a[%w+.-]*://') then
    return nil
  end
  return M.abspath(name)
end

--- The loaded buffer that edits `path`, or nil.
function M.find_buf(path)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if M.buf_path(buf) == path then
      return buf
    end
  end
  return nil
end

-- ---------------------------------------------------------------------------
-- Text.

--- Splits text into lines on "\n"; a final newline does not make an empty
--- last line. When every line ends in "\r" (CRLF text), the "\r" is dropped.
function M.split_lines(text)
  local lines = {}
  local start = 1
  while true do
    local i = text:find('\n', start, true)
    if not i then
      break
    end
    lines[#lines + 1] = text:sub(start, i - 1)
    start = i + 1
  end
  if start <= #text then
    lines[#lines + 1] = text:sub(start)
  end
  local crlf = #lines > 0
  for _, l in ipairs(lines) do
    if l:sub(-1) ~= '\r' then
      crlf = false
      break
    end
  end
  if crlf then
    for i, l in ipairs(lines) do
      lines[i] = l:sub(1, -2)
    end
  end
  return lines
end

--- The bytes a `:write` of the buffer would produce (fileformat, eol, bomb).
function M.buf_bytes(buf)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  if #lines == 1 and lines[1] == '' then
    -- One empty line is either an empty buffer (written as 0 bytes) or a
    -- file holding one newline; only the buffer's byte count tells them apart
    -- (line2byte() does not, after an edit emptied the buffer).
    local bytes = vim.api.nvim_buf_call(buf, function()
      return vim.fn.wordcount().bytes
    end)
    if bytes == 0 then
      return ''
    end
  end
  local bo = vim.bo[buf]
  local nl = bo.fileformat == 'dos' and '\r\n' or bo.fileformat == 'mac' and '\r' or '\n'
  local text = table.concat(lines, nl)
  if bo.eol or (bo.fixeol and not bo.binary) then
    text = text .. nl
  end
  if bo.bomb and not bo.binary then
    text = '\239\187\191' .. text
  end
  return text
end

--- The bytes of a file, or nil when it cannot be read.
function M.read_file(path)
  local f = io.open(path, 'rb')
  if not f then
    return nil
  end
  local s = f:read('*a')
  f:close()
  return s
end

-- ---------------------------------------------------------------------------
-- Views that stay open.

--- How often a view that stays open (the log, the blame notes) asks the
--- server again, so the ages it wrote ("5m ago") stay true (milliseconds).
M.age_refresh_ms = 60000

--- Calls fn on the main loop every `ms` until the returned function is called.
function M.every(ms, fn)
  local timer = M.uv.new_timer()
  timer:start(ms, ms, vim.schedule_wrap(fn))
  return function()
    if not timer:is_closing() then
      timer:stop()
      timer:close()
    end
  end
end

--- Shortens s to at most n display cells, on one line.
function M.truncate(s, n)
  s = tostring(s or ''):gsub('[\r\n]+', ' ')
  if vim.fn.strdisplaywidth(s) <= n then
    return s
  end
  local out = vim.fn.strcharpart(s, 0, n - 1)
  while vim.fn.strdisplaywidth(out) > n - 1 do
    out = vim.fn.strcharpart(out, 0, vim.fn.strchars(out) - 1)
  end
  return out .. '…'
end

return M
