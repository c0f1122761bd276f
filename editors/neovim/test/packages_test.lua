-- The plugin installed as the README says: as a native package (`:help packages`)
--   $XDG_DATA_HOME/nvim/site/pack/rewind/start/rewind -> editors/neovim
-- with the README's `require("rewind").setup({})` in $XDG_CONFIG_HOME/nvim/init.lua and
-- rewind-lsp on PATH. run.sh starts a plain `nvim --headless -i NONE -n` (the user's init, the
-- default 'packpath') in a workspace with two turns recorded under $REWIND_LSP_HOME, then
-- -c 'luafile test/packages_test.lua'.
-- env: REWIND_TEST_WS (workspace), REWIND_TEST_PACK (the package folder), REWIND_TEST_HELP=1
--      (check :helptags ALL and :help rewind.txt).
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/harness.lua')
local check, wait = H.check, H.wait

local WS = assert(os.getenv('REWIND_TEST_WS'), 'REWIND_TEST_WS')
local PACK = assert(os.getenv('REWIND_TEST_PACK'), 'REWIND_TEST_PACK')
local T = 15000

H.section('loaded as a package', function()
  local v = vim.version()
  H.out(string.format('# nvim %d.%d.%d', v.major, v.minor, v.patch))
  check('the package is on the runtime path', vim.tbl_contains(vim.api.nvim_list_runtime_paths(), PACK), vim.api.nvim_list_runtime_paths())
  check('its plugin/rewind.lua defined the commands at startup', vim.fn.exists(':Rewind') == 2 and vim.fn.exists(':RewindPreview') == 2
    and vim.fn.exists(':RewindUndo') == 2 and vim.fn.exists(':RewindLog') == 2)
  local rewind = package.loaded['rewind']
  check('init.lua ran require("rewind").setup({})', rewind ~= nil and rewind.config() ~= nil)
  local src = debug.getinfo(require('rewind').setup, 'S').source
  check('the module comes from the package folder', src:find(PACK .. '/lua/rewind/init.lua', 1, true) ~= nil, src)
end)

H.section(':help after :helptags ALL', function()
  if os.getenv('REWIND_TEST_HELP') ~= '1' then
    -- lazy.nvim makes the help tags of its plugins itself (and resets 'runtimepath').
    return
  end
  vim.cmd('helptags ALL')
  -- (`:help rewind` alone is Vim's own `:rewind`.)
  local ok, err = pcall(vim.cmd, 'help rewind.txt')
  check(':help rewind.txt opens the plugin help', ok and vim.api.nvim_buf_get_name(0):find('doc/rewind.txt', 1, true) ~= nil, err or vim.api.nvim_buf_get_name(0))
  pcall(vim.cmd, 'helpclose')
end)

H.section('the server from PATH', function()
  H.capture_notify()
  vim.cmd('cd ' .. vim.fn.fnameescape(WS))
  vim.cmd('edit a.txt')
  local rewind = require('rewind')
  check('opening a file of the workspace starts rewind-lsp from PATH', wait(T, function()
    local c = rewind.client()
    return c and require('rewind.client').is_ready(c)
  end), H.notes_since(1))
  vim.cmd('RewindLog')
  check(':RewindLog lists both turns from the default store', wait(T, function()
    local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
    return vim.bo.filetype == 'rewindlog' and text:find('Turn 2', 1, true) and text:find('Turn 1', 1, true)
  end), vim.api.nvim_buf_get_lines(0, 0, -1, false))
end)

H.section(':checkhealth rewind', function()
  vim.cmd('checkhealth rewind')
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  check('health check finds the server and reports no error', text:find('rewind-lsp', 1, true) ~= nil and text:find('ERROR', 1, true) == nil, text)
end)

H.finish()
