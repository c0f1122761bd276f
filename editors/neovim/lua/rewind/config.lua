-- rewind.config: option defaults, validation and the merged configuration.
local M = {}

--- The documented defaults (see :help rewind-options).
M.defaults = {
  -- Command that starts the language server.
  cmd = { 'rewind-lsp' },
  -- Extra environment for the server process (table of strings), or nil.
  cmd_env = nil,
  -- A directory holding one of these is a workspace root.
  root_markers = { '.git', '.rewindignore' },
  -- Start the server for files opened inside a root (found by root_markers).
  autostart = true,
  -- Store directory (initializationOptions.storeDir): nil (the server's default,
  -- one store per root), a path (used for every root), or function(root) -> path|nil.
  store_dir = nil,
  -- Quiet time that ends an automatic turn (initializationOptions.autoTurnQuietMs).
  autoTurnQuietMs = 3000,
  -- Further initializationOptions, merged under the two above.
  init_options = {},
  -- Mode of :Rewind when a target but no mode is given.
  default_mode = 'code',
  -- Ask before applying a rewind (:Rewind! never asks).
  confirm = true,
  -- How :Rewind shows the plan before asking: "float" or "echo".
  plan_view = 'float',
  -- Write the buffers a rewind or undo changed, so tools reading the disk see it.
  write_after_rewind = true,
  -- After a rewind or undo, compare buffers and files with the target.
  verify_after_rewind = true,
  -- Keymaps: false (none), true (the defaults below) or a table overriding them.
  keymaps = false,
  -- Level of the plugin's log file (stdpath('cache')/rewind.log).
  log_level = 'warn',
  -- How long to wait for the server to answer `initialize`.
  startup_timeout_ms = 10000,
  -- How many turns :RewindLog and the turn pickers list at a time (older ones a page later).
  turns_per_page = 50,
}

--- Default keymaps used when `keymaps = true`; each may be set to false.
M.default_keymaps = {
  rewind = '<leader>rr',
  preview = '<leader>rp',
  undo = '<leader>ru',
  checkpoint = '<leader>rc',
  log = '<leader>rl',
}

M.modes = require('rewind.protocol').modes

local current = vim.deepcopy(M.defaults)
M.did_setup = false

local function describe(v)
  if type(v) == 'string' then
    return string.format('string %q', v)
  end
  return type(v) .. (type(v) ~= 'nil' and (' ' .. vim.inspect(v, { newline = ' ', indent = '' })) or '')
end

local function is_list_of_strings(v, allow_empty)
  if type(v) ~= 'table' or (not allow_empty and #v == 0) then
    return false
  end
  local n = 0
  for k, s in pairs(v) do
    n = n + 1
    if type(k) ~= 'number' or type(s) ~= 'string' or s == '' then
      return false
    end
  end
  return n == #v
end

local function one_of(list)
  return {
    function(v)
      return vim.tbl_contains(list, v)
    end,
    'one of "' .. table.concat(list, '", "') .. '"',
  }
end

local function positive_int(v)
  return type(v) == 'number' and v >= 0 and math.floor(v) == v
end

-- Each entry: option = { check(value) -> bool, "what it must be" }.
local rules = {
  cmd = {
    function(v)
      return is_list_of_strings(v)
    end,
    'a non-empty list of strings, like { "rewind-lsp" } or { "/path/to/rewind-lsp", "serve" }',
  },
  cmd_env = {
    function(v)
      if v == nil then
        return true
      end
      if type(v) ~= 'table' then
        return false
      end
      for k, s in pairs(v) do
        if type(k) ~= 'string' or (type(s) ~= 'string' and type(s) ~= 'number') then
          return false
        end
      end
      return true
    end,
    'nil or a table of environment variables, like { REWIND_LSP_HOME = "/tmp/store" }',
  },
  root_markers = {
    function(v)
      return is_list_of_strings(v, true)
    end,
    'a list of file or folder names, like { ".git" }',
  },
  autostart = {
    function(v)
      return type(v) == 'boolean'
    end,
    'true or false',
  },
  store_dir = {
    function(v)
      return v == nil or (type(v) == 'string' and v ~= '') or type(v) == 'function'
    end,
    'nil, a directory path, or a function(root) returning one',
  },
  autoTurnQuietMs = { positive_int, 'a whole number of milliseconds (0 or more)' },
  init_options = {
    function(v)
      return type(v) == 'table'
    end,
    'a table',
  },
  default_mode = one_of(M.modes),
  confirm = {
    function(v)
      return type(v) == 'boolean'
    end,
    'true or false',
  },
  plan_view = one_of({ 'float', 'echo' }),
  write_after_rewind = {
    function(v)
      return type(v) == 'boolean'
    end,
    'true or false',
  },
  verify_after_rewind = {
    function(v)
      return type(v) == 'boolean'
    end,
    'true or false',
  },
  keymaps = {
    function(v)
      if type(v) == 'boolean' then
        return true
      end
      if type(v) ~= 'table' then
        return false
      end
      for k, lhs in pairs(v) do
        if M.default_keymaps[k] == nil or not (lhs == false or (type(lhs) == 'string' and lhs ~= '')) then
          return false
        end
      end
      return true
    end,
    'true, false, or a table with keys '
      .. 'rewind, preview, undo, checkpoint, log'
      .. ' whose values are key sequences or false',
  },
  log_level = one_of({ 'trace', 'debug', 'info', 'warn', 'error', 'off' }),
  startup_timeout_ms = {
    function(v)
      return positive_int(v) and v > 0
    end,
    'a whole number of milliseconds greater than 0',
  },
  turns_per_page = {
    function(v)
      return positive_int(v) and v > 0
    end,
    'a whole number of turns greater than 0',
  },
}

--- Validates user options. Returns the merged configuration, or nil and a
--- list of error messages, and a list of warnings (unknown options).
function M.validate(opts)
  local errors, warnings = {}, {}
  if opts == nil then
    opts = {}
  end
  if type(opts) ~= 'table' then
    return nil, { 'setup() expects a table of options, got ' .. describe(opts) }, warnings
  end
  local known = vim.tbl_keys(rules)
  table.sort(known)
  known = table.concat(known, ', ')
  local keys = vim.tbl_keys(opts)
  table.sort(keys, function(a, b)
    return tostring(a) < tostring(b)
  end)
  for _, k in ipairs(keys) do
    local rule = rules[k]
    if rule == nil then
      warnings[#warnings + 1] = string.format(
        'unknown option `%s` (ignored); known options: %s',
        tostring(k),
        known
      )
    elseif not rule[1](opts[k]) then
      errors[#errors + 1] =
        string.format('option `%s` must be %s, got %s', k, rule[2], describe(opts[k]))
    end
  end
  if #errors > 0 then
    return nil, errors, warnings
  end
  local merged = vim.deepcopy(M.defaults)
  for k, v in pairs(opts) do
    if rules[k] then
      merged[k] = vim.deepcopy(v)
    end
  end
  return merged, nil, warnings
end

--- Replaces the current configuration (already validated).
function M.set(cfg)
  current = cfg
  M.did_setup = true
end

--- The current configuration (the defaults until setup() succeeds).
function M.get()
  return current
end

--- The keymaps to define: a table of action -> lhs (only enabled ones).
function M.keymaps()
  local km = current.keymaps
  if km == false then
    return {}
  end
  local out = {}
  for action, lhs in pairs(M.default_keymaps) do
    local v = lhs
    if type(km) == 'table' and km[action] ~= nil then
      v = km[action]
    end
    if v then
      out[action] = v
    end
  end
  return out
end

return M
