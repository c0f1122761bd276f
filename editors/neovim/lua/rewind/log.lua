-- rewind.log: the plugin's own log file (not the LSP log).
--
-- Lines go to stdpath('cache')/rewind.log when their level is at or above the
-- `log_level` option. Internal errors always land here with their traceback, so
-- the user sees a one-line message and a path instead of a Lua stack trace.
local M = {}

local levels = { trace = 0, debug = 1, info = 2, warn = 3, error = 4, off = 5 }
local threshold = levels.warn
local dir_ready = false

--- Path of the log file.
function M.path()
  return vim.fn.stdpath('cache') .. '/rewind.log'
end

--- Sets the lowest level that is written ("trace" … "error", or "off").
function M.set_level(name)
  threshold = levels[name] or levels.warn
end

local function write(level, parts)
  if levels[level] < threshold then
    return
  end
  local msg = {}
  for i = 1, parts.n do
    local v = parts[i]
    msg[#msg + 1] = type(v) == 'string' and v or vim.inspect(v)
  end
  if not dir_ready then
    dir_ready = pcall(vim.fn.mkdir, vim.fn.stdpath('cache'), 'p')
  end
  local ok, f = pcall(io.open, M.path(), 'a')
  if not ok or not f then
    return
  end
  f:write(os.date('%Y-%m-%d %H:%M:%S'), ' ', level:upper(), ' ', table.concat(msg, ' '), '\n')
  f:close()
end

for name in pairs(levels) do
  if name ~= 'off' then
    M[name] = function(...)
      write(name, { n = select('#', ...), ... })
    end
  end
end

return M
