-- Option validation, keymaps and failure messages (no running server needed).
-- nvim --headless -u NONE -i NONE -n --cmd 'set rtp^=PLUGIN' --cmd 'runtime plugin/rewind.lua'
--   -c 'luafile test/setup_test.lua'
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/harness.lua')
local check, eq, wait = H.check, H.eq, H.wait

H.capture_notify()
H.fake_ui()
local rewind = require('rewind')
local config = require('rewind.config')

local function setup_error(name, opts, want)
  local n0 = #H.notes + 1
  local ok = rewind.setup(opts)
  local msg = H.notes_since(n0)
  check(name .. ': setup returns false', ok == false, msg)
  check(name .. ': message says ' .. want, msg:find(want, 1, true) ~= nil, msg)
  check(name .. ': no stack trace', msg:find('traceback', 1, true) == nil, msg)
end

H.section('defaults', function()
  local d = config.defaults
  eq('default cmd', d.cmd, { 'rewind-lsp' })
  eq('default root markers', d.root_markers, { '.git', '.rewindignore' })
  eq('default autoTurnQuietMs', d.autoTurnQuietMs, 3000)
  eq('keymaps off by default', d.keymaps, false)
  eq('write after rewind on by default', d.write_after_rewind, true)
  eq('default mode', d.default_mode, 'code')
  check('setup() with no options succeeds', rewind.setup() == true)
  eq('no keymap defined by default', vim.fn.maparg('<leader>rr', 'n'), '')
end)

H.section('validation', function()
  setup_error('cmd as a string', { cmd = 'rewind-lsp' }, 'option `cmd` must be a non-empty list of strings')
  setup_error('empty cmd', { cmd = {} }, 'option `cmd` must be a non-empty list of strings')
  setup_error('confirm as a string', { confirm = 'yes' }, 'option `confirm` must be true or false, got string "yes"')
  setup_error('plan_view', { plan_view = 'popup' }, 'option `plan_view` must be one of "float", "echo"')
  setup_error('default_mode', { default_mode = 'all' }, 'option `default_mode` must be one of "code"')
  setup_error('negative quiet time', { autoTurnQuietMs = -5 }, 'option `autoTurnQuietMs` must be a whole number of milliseconds')
  setup_error('no turns per page', { turns_per_page = 0 }, 'option `turns_per_page` must be a whole number of turns greater than 0, got number 0')
  setup_error('half a turn per page', { turns_per_page = 2.5 }, 'option `turns_per_page` must be a whole number of turns')
  setup_error('unknown keymap', { keymaps = { rewind = '<leader>x', nope = 'y' } }, 'option `keymaps` must be true, false, or a table')
  setup_error('options not a table', 'fast', 'setup() expects a table of options')
  -- Two errors at once are both reported.
  setup_error('two errors', { cmd = 1, log_level = 'loud' }, 'option `log_level` must be one of')
  eq('failed setup keeps the previous configuration', config.get().cmd, { 'rewind-lsp' })

  local n0 = #H.notes + 1
  check('unknown option: setup still succeeds', rewind.setup({ colour = 'red' }) == true)
  check('unknown option: warned by name', H.notes_since(n0):find('unknown option `colour`', 1, true) ~= nil, H.notes_since(n0))
end)

H.section('keymaps', function()
  check('keymaps = true', rewind.setup({ keymaps = true }) == true)
  check('default <leader>rr maps :Rewind', vim.fn.maparg('<leader>rr', 'n'):find('Rewind', 1, true) ~= nil)
  check('custom keymaps', rewind.setup({ keymaps = { log = '<leader>xl', rewind = false } }) == true)
  check('custom log keymap', vim.fn.maparg('<leader>xl', 'n'):find('RewindLog', 1, true) ~= nil)
  eq('keymap disabled with false (and the old one removed)', vim.fn.maparg('<leader>rr', 'n'), '')
  check('setup without keymaps', rewind.setup({}) == true)
  eq('keymaps of the previous setup removed', vim.fn.maparg('<leader>xl', 'n'), '')
end)

H.section('missing server binary', function()
  rewind.setup({ cmd = { '/nonexistent/rewind-lsp' } })
  local n0 = #H.notes + 1
  vim.cmd('RewindLog')
  check('a message appears', wait(2000, function()
    return #H.notes >= n0
  end))
  local msg = H.notes_since(n0)
  check('message names the missing executable', msg:find('/nonexistent/rewind-lsp', 1, true) ~= nil
    and msg:find('not an executable', 1, true) ~= nil, msg)
  check('no stack trace', msg:find('traceback', 1, true) == nil, msg)
  vim.cmd('checkhealth rewind')
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  check('checkhealth reports the missing server as an ERROR', text:find('ERROR', 1, true) ~= nil
    and text:find('/nonexistent/rewind-lsp', 1, true) ~= nil, text)
end)

H.section('internal errors are not stack traces', function()
  local util = require('rewind.util')
  local n0 = #H.notes + 1
  util.run(function()
    local t = nil
    return t.field -- a bug
  end)
  local msg = H.notes_since(n0)
  check('internal error reported in one line', msg:find('internal error', 1, true) ~= nil and msg:find('\n') == nil, msg)
  check('internal error points to the log', msg:find('rewind.log', 1, true) ~= nil, msg)
end)

H.section('help', function()
  local plug = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h')
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir .. '/doc', 'p')
  vim.fn.writefile(vim.fn.readfile(plug .. '/doc/rewind.txt'), dir .. '/doc/rewind.txt')
  local ok, err = pcall(vim.cmd, 'helptags ' .. vim.fn.fnameescape(dir .. '/doc'))
  check('helptags accepts doc/rewind.txt', ok, err)
  vim.opt.rtp:prepend(dir)
  for _, tag in ipairs({ 'rewind.txt', ':Rewind', ':RewindPreview', ':RewindUndo', ':RewindCheckpoint', ':RewindLog',
    'rewind-options', 'rewind-option-write_after_rewind', 'rewind-install' }) do
    ok = pcall(vim.cmd, 'help ' .. tag)
    check(':help ' .. tag, ok and vim.fn.expand('%:t') == 'rewind.txt')
    pcall(vim.cmd, 'helpclose')
  end
end)

H.section('pure helpers', function()
  local util = require('rewind.util')
  eq('split_lines final newline', util.split_lines('a\nb\n'), { 'a', 'b' })
  eq('split_lines no final newline', util.split_lines('a\nb'), { 'a', 'b' })
  eq('split_lines CRLF', util.split_lines('a\r\nb\r\n'), { 'a', 'b' })
  eq('split_lines empty', util.split_lines(''), {})
  eq('relpath inside', util.relpath('/w', '/w/a/b.txt'), 'a/b.txt')
  eq('relpath outside', util.relpath('/w', '/wx/b.txt'), nil)
  -- Windows: drive letters in either case, backslashes, a drive's root.
  eq('normpath windows', util.normpath('c:\\Users\\me\\w', true), 'C:/Users/me/w')
  eq('relpath windows', util.relpath('C:/Users/me/w', 'c:\\users\\me\\w\\a\\b.txt', true), 'a/b.txt')
  eq('relpath windows outside', util.relpath('C:\\w', 'C:\\wx\\b.txt', true), nil)
  eq('relpath windows drive root', util.relpath('D:\\', 'd:\\a.txt', true), 'a.txt')
  eq('relpath keeps case on unix', util.relpath('/W', '/w/a', false), nil)
  eq('joinpath drive root', util.joinpath('C:/', 'a/b'), 'C:/a/b')
  eq('content uri escapes', require('rewind.apply').content_uri('abc', 'dir/a b#.txt'), 'rewind:/abc/dir/a%20b%23.txt')
  local cands = require('rewind.picker').target_candidates({
    turns = { { turn = 1 }, { turn = 2 } },
    checkpoints = { { label = 'x' }, { label = '' } },
  })
  eq('target candidates', cands, { '2', '1', 'turn:2:end', 'turn:1:end', '~1', '~2', '@x' })

  -- Pages of a history of turns 1-7, three turns a page: the latest holds 5-7, `before = 5` 2-4.
  local paging = require('rewind.paging')
  local function turn(n)
    return { turn = n, entry = 't' .. n, title = 'Turn ' .. n, age = n .. 'm ago' }
  end
  local latest = { turns = { turn(5), turn(6), turn(7) }, checkpoints = { { entry = 'c2', label = 'late' } }, rewinds = vim.NIL, summaries = {}, more = true }
  local older = { turns = { turn(2), turn(3), turn(4) }, checkpoints = { { entry = 'c1', label = 'early' } }, rewinds = {}, summaries = {}, more = true }
  eq('older_before: the first turn listed while older ones were left out', paging.older_before(latest), 5)
  eq('older_before: nil once the oldest turn is listed', paging.older_before({ turns = { turn(1) }, more = false }), nil)
  eq('older_before: nil for an empty list', paging.older_before({ turns = vim.NIL }), nil)
  local both = paging.append_older(latest, older)
  eq('append_older: the older page first, oldest first', vim.tbl_map(function(t)
    return t.turn
  end, both.turns), { 2, 3, 4, 5, 6, 7 })
  eq('append_older: checkpoints joined the same way', vim.tbl_map(function(c)
    return c.label
  end, both.checkpoints), { 'early', 'late' })
  eq('append_older: more is the older page\'s', { both.more, paging.older_before(both) }, { true, 2 })
  local stale = { turns = { turn(3), vim.tbl_extend('force', turn(5), { age = 'stale' }) }, more = false }
  eq('append_older: an entry both hold is kept once, as the newer listing has it', vim.tbl_map(function(t)
    return t.turn .. ' ' .. t.age
  end, paging.append_older(latest, stale).turns), { '3 3m ago', '5 5m ago', '6 6m ago', '7 7m ago' })

  local items = vim.tbl_map(function(it)
    return it.text
  end, require('rewind.picker').items({ turns = { turn(5), turn(6) }, checkpoints = { { entry = 'c', label = 'x', title = 'Checkpoint @x', age = '1m ago' } }, more = true }))
  eq('picker items: the turns, "Older turns…", then the checkpoints', { items[3], items[4]:sub(1, 13) }, { 'Older turns…  (before turn 5)', 'Checkpoint @x' })
end)

H.finish()
