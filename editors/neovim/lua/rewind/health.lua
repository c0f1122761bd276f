-- :checkhealth rewind
local M = {}

local function reporter()
  local h = vim.health or require('health')
  return {
    start = h.start or h.report_start,
    ok = h.ok or h.report_ok,
    info = h.info or h.report_info,
    warn = h.warn or h.report_warn,
    error = h.error or h.report_error,
  }
end

local function has(v)
  return vim.fn.has('nvim-' .. v) == 1
end

function M.check()
  local h = reporter()
  local config = require('rewind.config')
  local cfg = config.get()

  h.start('rewind: Neovim')
  local v = vim.version()
  local version = string.format('%d.%d.%d', v.major, v.minor, v.patch)
  if has('0.7') then
    h.ok('Neovim ' .. version .. ' (0.7 or later)')
  else
    h.error('Neovim ' .. version .. ' is too old: rewind.nvim needs 0.7 or later')
  end
  h.info(string.format(
    'client start: %s; requests: %s',
    vim.lsp.start and 'vim.lsp.start' or 'vim.lsp.start_client + buf_attach_client',
    has('0.11') and 'client:request' or 'client.request'
  ))

  h.start('rewind: configuration')
  if config.did_setup then
    h.ok('require("rewind").setup() was called')
  else
    h.warn('require("rewind").setup() was not called: commands use the defaults and files do not start the server', {
      'Add require("rewind").setup({}) to your config (see :help rewind-setup)',
    })
  end
  local _, errors = config.validate(cfg)
  if errors then
    h.error('invalid options: ' .. table.concat(errors, '; '))
  else
    h.ok('options are valid')
  end
  h.info('log file: ' .. require('rewind.log').path())

  h.start('rewind: server')
  local exe = cfg.cmd[1]
  local path = vim.fn.exepath(exe)
  if path == '' then
    h.error(string.format('%q is not executable or not on PATH', exe), {
      'Build it: go install github.com/rewind-lsp/rewind-lsp/cmd/rewind-lsp@latest',
      'Or point setup({ cmd = { "/path/to/rewind-lsp" } }) at it',
    })
  else
    h.ok('server: ' .. path)
    local out = vim.fn.system({ path, 'version' })
    if vim.v.shell_error == 0 then
      h.ok('version: ' .. vim.trim(out))
    else
      h.warn('`' .. exe .. ' version` failed: ' .. vim.trim(out))
    end
  end

  h.start('rewind: clients')
  local client_mod = require('rewind.client')
  local any = false
  for root, client in pairs(client_mod.all()) do
    any = true
    local caps = client.server_capabilities or {}
    local cmds = (caps.executeCommandProvider or {}).commands or {}
    local missing = {}
    local want = require('rewind.protocol').commands
    for _, c in ipairs({ want.list, want.preview, want.rewind, want.undo, want.checkpoint }) do
      if not vim.tbl_contains(cmds, c) then
        missing[#missing + 1] = c
      end
    end
    if not client_mod.is_ready(client) then
      h.warn(string.format('client %d for %s is still starting', client.id, root))
    elseif #missing > 0 then
      h.error(string.format('client %d for %s does not offer: %s', client.id, root, table.concat(missing, ', ')))
    else
      h.ok(string.format('client %d for %s: %d commands', client.id, root, #cmds))
    end
  end
  if not any then
    h.info('no rewind-lsp client is running (one starts when you open a file inside a root or run a :Rewind command)')
  end
end

return M
