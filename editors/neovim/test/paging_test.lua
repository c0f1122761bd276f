-- A history longer than a page in Neovim: :RewindLog lists the latest page
-- (turns_per_page, 50) with an "Older turns…" line that lists the page before
-- with <CR>; a refresh keeps the pages loaded; :RewindLog N lists N turns; the
-- turn pickers offer "Older turns…"; a rewind to a turn of an older page
-- restores its start; completion offers the cached page.
--
-- run.sh gives an empty workspace; the turns are made here with the CLI, as an
-- agent hook would, before the server starts: turn i ("paging turn 00i done")
-- writes pages.txt as "paging turn 00i done".
-- env: REWIND_TEST_WS, REWIND_TEST_BIN, REWIND_TEST_STORE.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/harness.lua')
local check, eq, wait = H.check, H.eq, H.wait

local WS = assert(os.getenv('REWIND_TEST_WS'), 'REWIND_TEST_WS')
local BIN = assert(os.getenv('REWIND_TEST_BIN'), 'REWIND_TEST_BIN')
local STORE = assert(os.getenv('REWIND_TEST_STORE'), 'REWIND_TEST_STORE')
local T = 15000
local TURNS, PAGE = 120, 50

local ws = H.workspace(WS, BIN, STORE)
local path, write, cli = ws.path, ws.write, ws.cli
local function name(i)
  return string.format('paging turn %03d done', i)
end

local rewind = require('rewind')
local logview = require('rewind.logview')

--- The turn numbers the log buffer lists, newest first, and its "Older turns…" line.
local function shown(buf)
  local turns, older = {}, nil
  for _, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local n = l:match('^Turn (%d+): ')
    if n then
      turns[#turns + 1] = tonumber(n)
    elseif l:match('^Older turns…') then
      older = l
    end
  end
  return turns, older
end

local function range(hi, lo)
  local out = {}
  for n = hi, lo, -1 do
    out[#out + 1] = n
  end
  return out
end

H.section('setup and turns', function()
  vim.cmd('cd ' .. vim.fn.fnameescape(WS))
  H.capture_notify()
  H.fake_ui()
  write('.rewindignore', '') -- a root marker: opening a file starts the server
  write('keep.txt', 'kept\n')
  local t0 = vim.loop.hrtime()
  for i = 1, TURNS do
    cli('turn', 'start', '--prompt', name(i))
    write('pages.txt', name(i) .. '\n')
    cli('turn', 'end')
  end
  H.out(string.format('# %d turns made with the command line in %.1fs', TURNS, (vim.loop.hrtime() - t0) / 1e9))
  eq('the latest turn is the last one made', vim.fn.json_decode(cli('--json', 'log', '--limit', '1')).turns[1].prompt, name(TURNS))
  check('setup()', rewind.setup({ cmd = { BIN }, store_dir = STORE, log_level = 'debug', autoTurnQuietMs = 60000 }) == true)
  eq('turns_per_page defaults to 50', rewind.config().turns_per_page, PAGE)
  vim.cmd('edit keep.txt')
  check('the client starts', wait(T, function()
    return rewind.client() ~= nil and require('rewind.client').is_ready(rewind.client())
  end), H.notes_since(1))
end)

local logbuf
H.section(':RewindLog lists the latest page; <CR> on "Older turns…" lists the page before', function()
  vim.cmd('RewindLog')
  check('the log opens', wait(T, function()
    return vim.bo.filetype == 'rewindlog' and logview.view(vim.api.nvim_get_current_buf()) ~= nil
      and logview.view(vim.api.nvim_get_current_buf()).generation ~= nil
  end), H.notes_since(1))
  logbuf = vim.api.nvim_get_current_buf()
  local turns, older = shown(logbuf)
  eq('the log lists the latest 50 turns, newest first', turns, range(TURNS, TURNS - PAGE + 1))
  eq('its last turn line is followed by "Older turns…"', older, 'Older turns…  (before turn 71; <CR> lists up to 50 more)')
  local header = vim.api.nvim_buf_get_lines(logbuf, 0, 1, false)[1]
  check('the header says older turns are below', header:find('(50 turns, older ones below them)', 1, true) ~= nil, header)
  check('the turns are in the server\'s words', table.concat(vim.api.nvim_buf_get_lines(logbuf, 0, -1, false), '\n')
    :find('Turn 120: ' .. name(120) .. '  %d+[smhd] ago') ~= nil)

  local lnum
  for i, l in ipairs(vim.api.nvim_buf_get_lines(logbuf, 0, -1, false)) do
    if l:match('^Older turns…') then
      lnum = i
    end
  end
  local gen = logview.view(logbuf).generation
  vim.api.nvim_win_set_cursor(0, { lnum, 0 })
  vim.cmd('normal \r')
  check('<CR> on "Older turns…" lists the page before', wait(T, function()
    return logview.view(logbuf).generation > gen
  end), H.notes_since(1))
  turns, older = shown(logbuf)
  eq('the log lists both pages', turns, range(TURNS, TURNS - 2 * PAGE + 1))
  eq('"Older turns…" moved below the older page', older, 'Older turns…  (before turn 21; <CR> lists up to 50 more)')
  local cursor = vim.api.nvim_get_current_line()
  check('the cursor is on the newest turn of the page just listed', cursor:find('^Turn 70: ' .. name(70)) ~= nil, cursor)
  vim.cmd('normal \r')
  check('<CR> on a turn of the older page previews it', wait(T, function()
    local s = require('rewind.preview').session()
    return s and s.target == '70'
  end), H.notes_since(1))
  vim.cmd('tabclose')
  vim.api.nvim_set_current_win(vim.fn.bufwinid(logbuf))

  -- A journal change: the log lists as many turns as it shows, the older page stays.
  gen = logview.view(logbuf).generation
  cli('checkpoint', 'paging-cp')
  check('the log refreshes with the checkpoint', wait(T, function()
    return table.concat(vim.api.nvim_buf_get_lines(logbuf, 0, -1, false), '\n'):find('@paging-cp', 1, true) ~= nil
  end), vim.api.nvim_buf_get_lines(logbuf, 0, -1, false))
  turns, older = shown(logbuf)
  eq('a refresh keeps the older page listed', turns, range(TURNS, TURNS - 2 * PAGE + 1))
  eq('… and "Older turns…" below it', older, 'Older turns…  (before turn 21; <CR> lists up to 50 more)')

  for i, l in ipairs(vim.api.nvim_buf_get_lines(logbuf, 0, -1, false)) do
    if l:match('^Older turns…') then
      lnum = i
    end
  end
  gen = logview.view(logbuf).generation
  vim.api.nvim_win_set_cursor(0, { lnum, 0 })
  vim.cmd('normal \r')
  check('<CR> lists the oldest page', wait(T, function()
    return logview.view(logbuf).generation > gen
  end))
  turns, older = shown(logbuf)
  eq('the log lists every turn', turns, range(TURNS, 1))
  eq('no "Older turns…" once the first turn is listed', older, nil)

  vim.cmd('RewindLog 10')
  check(':RewindLog 10 lists the latest 10 turns', wait(T, function()
    local t = shown(logbuf)
    return #t == 10
  end), { shown(logbuf) })
  turns, older = shown(logbuf)
  eq(':RewindLog 10: turns 120-111', turns, range(TURNS, TURNS - 9))
  eq(':RewindLog 10: "Older turns…" before turn 111', older, 'Older turns…  (before turn 111; <CR> lists up to 50 more)')
  local n0 = #H.notes + 1
  vim.cmd('RewindLog many')
  check(':RewindLog with a word: a clear message', H.notes_since(n0):find('expected a number of turns', 1, true) ~= nil, H.notes_since(n0))
  vim.api.nvim_buf_delete(logbuf, { force = true })
end)

H.section(':Rewind: "Older turns…" in the picker; a rewind to a turn of an older page', function()
  local n0 = #H.notes + 1
  local calls0 = #H.select_calls
  local seq = rewind.last().seq
  H.select_answers = { H.pick('Older turns…'), H.pick('Older turns…'), H.pick(name(5)), H.pick('code'), H.choose('apply') }
  vim.cmd('Rewind')
  check('the rewind finishes', wait(T, function()
    return rewind.last().seq > seq
  end), H.notes_since(n0))
  local p1, p2, p3 = H.select_calls[calls0 + 1], H.select_calls[calls0 + 2], H.select_calls[calls0 + 3]
  local function turns_of(call)
    local out = {}
    for _, it in ipairs(call and call.raw or {}) do
      if type(it) == 'table' and it.kind == 'turn' then
        out[#out + 1] = it.turn.turn
      end
    end
    return out
  end
  eq('the picker lists the latest 50 turns first', turns_of(p1), range(TURNS, TURNS - PAGE + 1))
  check('… then "Older turns…", then the checkpoint recorded among them', p1 and p1.items[PAGE + 1] == 'Older turns…  (before turn 71)'
    and (p1.items[PAGE + 2] or ''):find('Checkpoint @paging-cp', 1, true) == 1, p1 and vim.list_slice(p1.items, PAGE, PAGE + 2))
  eq('"Older turns…" asks among the page before', turns_of(p2), range(TURNS - PAGE, TURNS - 2 * PAGE + 1))
  check('… saying so', p2 and p2.prompt:find('turns before turn 71', 1, true) ~= nil, p2 and p2.prompt)
  eq('and again, among the oldest page', turns_of(p3), range(TURNS - 2 * PAGE, 1))
  check('the oldest page offers no older turns', p3 and not vim.tbl_contains(p3.items, 'Older turns…  (before turn 1)')
    and not table.concat(p3.items, '\n'):find('Older turns', 1, true), p3 and p3.items)
  check('the rewind to turn 5 applied', rewind.last().applied == true, { last = rewind.last(), notes = H.notes_since(n0) })
  eq('pages.txt is as turn 4 left it', H.read(path('pages.txt')), name(4) .. '\n')
  eq('keep.txt is untouched', H.read(path('keep.txt')), 'kept\n')
  seq = rewind.last().seq
  vim.cmd('RewindUndo')
  check('undo', wait(T, function()
    return rewind.last().seq > seq and rewind.last().applied == true
  end), H.notes_since(n0))
  eq('pages.txt is back at the latest turn', H.read(path('pages.txt')), name(TURNS) .. '\n')
end)

H.section(':RewindRevert: turns only, a page at a time', function()
  local calls0 = #H.select_calls
  local n0 = #H.notes + 1
  H.select_answers = { H.pick('Older turns…'), function() return nil end }
  vim.cmd('RewindRevert')
  check('two pickers ran', wait(T, function()
    return #H.select_calls == calls0 + 2
  end), H.select_calls)
  local p1, p2 = H.select_calls[calls0 + 1], H.select_calls[calls0 + 2]
  check('the revert picker lists the latest turns and "Older turns…", no checkpoint', p1 and #p1.items == PAGE + 1
    and p1.items[PAGE + 1] == 'Older turns…  (before turn 71)' and p1.kind == 'rewind.revert', p1 and vim.list_slice(p1.items, PAGE, PAGE + 1))
  check('"Older turns…" asks among the page before', p2 and p2.items[1]:find('Turn 70: ' .. name(70), 1, true) == 1 and p2.kind == 'rewind.revert', p2 and p2.items[1])
  eq('cancelling changes nothing', H.read(path('pages.txt')), name(TURNS) .. '\n')
  check('no message but the cancel', H.notes_since(n0) == '', H.notes_since(n0))
end)

H.section('completion offers the cached page', function()
  local comp
  check('completion offers the latest turns', wait(T, function()
    comp = vim.fn.getcompletion('Rewind ', 'cmdline')
    return vim.tbl_contains(comp, tostring(TURNS))
  end), comp)
  check('… of the latest page only', vim.tbl_contains(comp, tostring(TURNS - PAGE + 1)) and not vim.tbl_contains(comp, tostring(TURNS - PAGE)), comp)
  check('… and the checkpoint recorded among them', vim.tbl_contains(vim.fn.getcompletion('Rewind @', 'cmdline'), '@paging-cp'))
end)

H.finish()
