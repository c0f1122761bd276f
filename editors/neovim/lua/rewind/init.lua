-- rewind: preview and rewind an AI agent's edits through rewind-lsp.
--
-- require("rewind").setup(opts) validates the options (see :help rewind-options),
-- starts or reuses one rewind-lsp client per workspace root as files are
-- opened, and defines the optional keymaps. The user commands live in
-- plugin/rewind.lua and load this module on first use.
local config = require('rewind.config')
local log = require('rewind.log')
local util = require('rewind.util')

local M = {}

local augroup
local defined_keymaps = {}

local function define_keymaps()
  -- A new setup() replaces the keymaps of the previous one.
  for _, lhs in ipairs(defined_keymaps) do
    pcall(vim.keymap.del, 'n', lhs)
  end
  defined_keymaps = {}
  local actions = {
    rewind = { '<cmd>Rewind<CR>', 'Rewind to a turn…' },
    preview = { '<cmd>RewindPreview<CR>', 'Preview a rewind…' },
    undo = { '<cmd>RewindUndo<CR>', 'Undo the last rewind' },
    checkpoint = { '<cmd>RewindCheckpoint<CR>', 'Create a checkpoint…' },
    log = { '<cmd>RewindLog<CR>', 'Show the rewind log' },
  }
  for action, lhs in pairs(config.keymaps()) do
    local a = actions[action]
    vim.keymap.set('n', lhs, a[1], { silent = true, desc = 'rewind: ' .. a[2] })
    defined_keymaps[#defined_keymaps + 1] = lhs
  end
end

local function do_setup(opts)
  local cfg, errors, warnings = config.validate(opts)
  for _, w in ipairs(warnings or {}) do
    util.notify('setup: ' .. w, vim.log.levels.WARN)
  end
  if not cfg then
    util.notify('setup: ' .. table.concat(errors, '; '), vim.log.levels.ERROR)
    return false
  end
  config.set(cfg)
  log.set_level(cfg.log_level)
  log.info('setup', cfg)

  augroup = vim.api.nvim_create_augroup('rewind', { clear = true })
  vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
    group = augroup,
    callback = function(ev)
      require('rewind.client').on_buf_read(ev.buf)
    end,
  })
  define_keymaps()
  if cfg.autostart then
    for _, buf in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(buf) then
        require('rewind.client').on_buf_read(buf)
      end
    end
  end
  return true
end

--- Configures the plugin. Returns true on success; on invalid options it
--- reports every problem through vim.notify, keeps the previous configuration
--- and returns false.
function M.setup(opts)
  local result = false
  util.guard(function()
    result = do_setup(opts)
  end)
  return result
end

--- The current configuration (read-only copy).
function M.config()
  return vim.deepcopy(config.get())
end

--- The running rewind-lsp client of `root` (default: the current one), or nil.
function M.client(root)
  local client = require('rewind.client')
  return client.get(root or client.current_root())
end

--- Lua API: the :Rewind flow. opts: {target?, mode?, confirm?, force?, report?}.
function M.rewind(opts)
  util.run(require('rewind.commands').rewind_flow, opts or {})
end

--- Lua API: the :RewindPreview flow. opts: {target?, paths?}.
function M.preview(opts)
  util.run(require('rewind.preview').flow, opts or {})
end

--- Lua API: :RewindUndo.
function M.undo()
  util.run(require('rewind.commands').undo_flow)
end

--- Lua API: :RewindCheckpoint; label nil asks for one.
function M.checkpoint(label)
  util.run(require('rewind.commands').checkpoint_flow, label)
end

--- Lua API: the :RewindRevert flow. opts: {target?, confirm?, paths?}.
function M.revert(opts)
  util.run(require('rewind.revert').flow, opts or {})
end

--- Lua API: :RewindBlame (toggle).
function M.blame()
  require('rewind.blame').toggle()
end

--- Lua API: :RewindLog. opts: {turns?}: list the latest `turns` turns.
function M.log(opts)
  util.run(require('rewind.logview').flow, opts and opts.turns)
end

--- The record of the latest rewind or undo: {seq, op, applied, reason, mode,
--- plan, written, mismatches, write_errors}. seq is 0 before the first one.
function M.last()
  return require('rewind.apply').last
end

--- Stops every rewind-lsp client started by the plugin.
function M.stop()
  require('rewind.client').stop_all()
end

return M
