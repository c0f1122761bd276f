-- End-to-end test of the plugin's commands against the real rewind-lsp server.
--
-- run.sh prepares a workspace with two agent turns made through the CLI:
--   before turn 1:  a.txt "alpha\nbeta\n", b.txt "one\n"            (keep.txt, .rewindignore)
--   after turn 1:   a.txt "alpha\nBETA\n", c.txt "new file\n"
--   after turn 2:   a.txt "alpha\nBETA\ngamma\n", b.txt deleted     (the state on disk now)
-- and starts: nvim --headless -u NONE -i NONE -n --cmd 'set rtp^=PLUGIN'
--   --cmd 'runtime plugin/rewind.lua' -c 'luafile test/e2e_test.lua'
-- env: REWIND_TEST_WS (workspace), REWIND_TEST_BIN (server), REWIND_TEST_STORE (store dir).
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/harness.lua')
local check, eq, wait = H.check, H.eq, H.wait

local WS = assert(os.getenv('REWIND_TEST_WS'), 'REWIND_TEST_WS')
local BIN = assert(os.getenv('REWIND_TEST_BIN'), 'REWIND_TEST_BIN')
local STORE = assert(os.getenv('REWIND_TEST_STORE'), 'REWIND_TEST_STORE')
local T = 15000 -- ms to wait for any server round trip

local AFTER_TURN2 = { ['a.txt'] = 'alpha\nBETA\ngamma\n', ['b.txt'] = false, ['c.txt'] = 'new file\n', ['keep.txt'] = 'keep\n' }
local BEFORE_TURN1 = { ['a.txt'] = 'alpha\nbeta\n', ['b.txt'] = 'one\n', ['c.txt'] = false, ['keep.txt'] = 'keep\n' }
-- crlf.txt ("one\r\ntwo\r\n") and empty.txt ("") are there from the start and untouched
-- by turns 1 and 2; the line-endings section makes a third turn that changes them.

local function path(rel)
  return WS .. '/' .. rel
end

local function disk_state()
  local s = {}
  for name in pairs(AFTER_TURN2) do
    s[name] = H.read(path(name)) or false
  end
  return s
end

local function buf_of(rel)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b) == path(rel) then
      return b
    end
  end
  return nil
end

local function buf_text(b)
  return table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n') .. '\n'
end

local rewind = require('rewind')

local function wait_op(seq)
  return wait(T, function()
    return rewind.last().seq >= seq
  end)
end

local function diff_windows(tab)
  local wins = {}
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(tab or 0)) do
    if vim.wo[w].diff then
      wins[#wins + 1] = w
    end
  end
  return wins
end

local function win_lines(w)
  return vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false)
end

H.section('environment', function()
  local v = vim.version()
  H.out(string.format('# nvim %d.%d.%d, vim.lsp.start=%s', v.major, v.minor, v.patch, tostring(vim.lsp.start ~= nil)))
  vim.cmd('cd ' .. vim.fn.fnameescape(WS))
  H.capture_notify()
  H.fake_ui()
  check('plugin/rewind.lua defines the commands', vim.fn.exists(':Rewind') == 2 and vim.fn.exists(':RewindPreview') == 2
    and vim.fn.exists(':RewindUndo') == 2 and vim.fn.exists(':RewindCheckpoint') == 2 and vim.fn.exists(':RewindLog') == 2
    and vim.fn.exists(':RewindResume') == 2)
  check('plugin/ loads no rewind module eagerly', package.loaded['rewind.client'] == nil)
  eq('workspace starts in the after-turn-2 state', disk_state(), AFTER_TURN2)
  local ok = rewind.setup({ cmd = { BIN }, store_dir = STORE, log_level = 'debug', autoTurnQuietMs = 60000 })
  check('setup() with valid options returns true', ok == true, H.notes_since(1))
end)

local client
H.section('client per root', function()
  vim.cmd('edit a.txt')
  check('opening a file in a root starts the client', wait(T, function()
    return rewind.client() ~= nil
  end))
  client = rewind.client()
  check('client initializes', wait(T, function()
    return require('rewind.client').is_ready(client)
  end))
  local cmds = ((client.server_capabilities or {}).executeCommandProvider or {}).commands or {}
  for _, c in ipairs({ 'rewind.list', 'rewind.preview', 'rewind.rewind', 'rewind.undo', 'rewind.checkpoint' }) do
    check('server advertises ' .. c, vim.tbl_contains(cmds, c), cmds)
  end
  eq('client root is the workspace', client.config.root_dir, WS)
  check('buffer a.txt attached to the client', vim.lsp.buf_is_attached(0, client.id))
  local caps = client.config.capabilities.workspace.workspaceEdit
  check('advertises workspaceEdit.documentChanges', caps.documentChanges == true)
  check('advertises create/rename/delete resource operations',
    vim.tbl_contains(caps.resourceOperations, 'create') and vim.tbl_contains(caps.resourceOperations, 'delete')
    and vim.tbl_contains(caps.resourceOperations, 'rename'))
  vim.cmd('edit c.txt')
  eq('second file of the root reuses the client', rewind.client().id, client.id)
  check('buffer c.txt attached', vim.lsp.buf_is_attached(0, client.id))
  vim.cmd('edit a.txt')
end)

local logbuf
H.section(':RewindLog', function()
  vim.cmd('RewindLog')
  check('log buffer opens', wait(T, function()
    return vim.bo.filetype == 'rewindlog' and vim.api.nvim_buf_line_count(0) > 3
  end), H.notes_since(1))
  logbuf = vim.api.nvim_get_current_buf()
  local lines = vim.api.nvim_buf_get_lines(logbuf, 0, -1, false)
  local text = table.concat(lines, '\n')
  check('log lists turn 2 with its title', text:find('Turn 2: second prompt', 1, true) ~= nil, lines)
  check('log lists turn 1 with its title', text:find('Turn 1: first prompt', 1, true) ~= nil, lines)
  check('log shows the server\'s ages', text:find('Turn 2: second prompt  %d+[smhd] ago') ~= nil, lines)
  check('turn 2 is listed before turn 1', (text:find('Turn 2', 1, true) or 1e9) < (text:find('Turn 1', 1, true) or 0), lines)
  check('log lists changed files', text:find('M a.txt', 1, true) ~= nil and text:find('A c.txt', 1, true) ~= nil
    and text:find('D b.txt', 1, true) ~= nil, lines)
  eq('log buffer is a scratch buffer', vim.bo[logbuf].buftype, 'nofile')
  -- <CR> on the "Turn 1" line previews turn 1
  local lnum
  for i, l in ipairs(lines) do
    if l:match('^Turn 1:') then
      lnum = i
    end
  end
  local tabs = #vim.api.nvim_list_tabpages()
  vim.api.nvim_win_set_cursor(0, { lnum, 0 })
  vim.cmd('normal \r')
  check('<CR> on a turn opens its preview tab', wait(T, function()
    return #vim.api.nvim_list_tabpages() == tabs + 1 and #diff_windows() == 2
  end), H.notes_since(1))
  local s = require('rewind.preview').session()
  check('the preview is of turn 1', s and s.target == '1', s and s.target)
  vim.cmd('normal q')
  check('q closes the preview tab', wait(2000, function()
    return #vim.api.nvim_list_tabpages() == tabs
  end))
  vim.cmd('close')
end)

H.section(':RewindPreview', function()
  vim.cmd('edit a.txt')
  local before_tabs = #vim.api.nvim_list_tabpages()
  local abuf = vim.api.nvim_get_current_buf()
  vim.cmd('RewindPreview 1')
  check('preview opens a new tab with 2 diff windows', wait(T, function()
    return #vim.api.nvim_list_tabpages() == before_tabs + 1 and #diff_windows() == 2
  end), H.notes_since(1))
  local s = require('rewind.preview').session()
  check('preview session exists', s ~= nil)
  if not s then
    return
  end
  local names = {}
  for _, f in ipairs(s.files) do
    names[#names + 1] = f.path .. ':' .. f.change
  end
  table.sort(names)
  eq('plan lists the three files', names, { 'a.txt:modify', 'b.txt:create', 'c.txt:delete' })
  eq('tab has exactly two windows', #vim.api.nvim_tabpage_list_wins(0), 2)
  local function show(path)
    for i, f in ipairs(s.files) do
      if f.path == path then
        if s.idx ~= i then
          local n = s.idx
          while s.idx ~= i do
            vim.cmd(i > s.idx and 'normal ]f' or 'normal [f')
            wait(T, function()
              return s.idx ~= n
            end)
            n = s.idx
          end
        end
        return f
      end
    end
  end
  -- a.txt: the current buffer against the target
  show('a.txt')
  local wins = diff_windows()
  eq('a.txt: 2 diff windows', #wins, 2)
  eq('a.txt: left window shows the real buffer', vim.api.nvim_win_get_buf(s.left), abuf)
  eq('a.txt: left is the current text', win_lines(s.left), { 'alpha', 'BETA', 'gamma' })
  eq('a.txt: right is the target text', win_lines(s.right), { 'alpha', 'beta' })
  check('a.txt: target buffer is a scratch buffer', vim.bo[vim.api.nvim_win_get_buf(s.right)].buftype == 'nofile')
  -- b.txt: created by the rewind -> empty left side
  show('b.txt')
  eq('b.txt (create): 2 diff windows', #diff_windows(), 2)
  eq('b.txt (create): left side is empty', win_lines(s.left), { '' })
  eq('b.txt (create): right is the target text', win_lines(s.right), { 'one' })
  -- c.txt: deleted by the rewind -> empty right side
  show('c.txt')
  eq('c.txt (delete): 2 diff windows', #diff_windows(), 2)
  eq('c.txt (delete): left is the current text', win_lines(s.left), { 'new file' })
  eq('c.txt (delete): right side is empty', win_lines(s.right), { '' })
  -- [f goes back
  local idx = s.idx
  vim.cmd('normal [f')
  check('[f moves to the previous file', wait(T, function()
    return s.idx == idx - 1
  end))
  vim.api.nvim_set_current_win(s.right)
  vim.cmd('normal q')
  check('q closes the preview tab', wait(2000, function()
    return #vim.api.nvim_list_tabpages() == before_tabs
  end))
  check('no window is left in diff mode', #diff_windows() == 0)
  check(']f mapping removed from the real buffer', vim.fn.maparg(']f', 'n') == '')
  eq('preview changed nothing on disk', disk_state(), AFTER_TURN2)

  -- Without a target: the turn picker first.
  H.select_answers = { H.pick('Turn 2') }
  vim.cmd('RewindPreview')
  check(':RewindPreview without target: picker, then the diff tab', wait(T, function()
    local x = require('rewind.preview').session()
    return x and x.target == '2' and #diff_windows() == 2
  end), H.notes_since(1))
  s = require('rewind.preview').session()
  names = {}
  for _, f in ipairs(s and s.files or {}) do
    names[#names + 1] = f.path .. ':' .. f.change
  end
  table.sort(names)
  eq('turn 2 preview lists its two files', names, { 'a.txt:modify', 'b.txt:create' })
  vim.cmd('tabclose')
  check('closing the tab ends the session', wait(2000, function()
    return #diff_windows() == 0 and require('rewind.preview').session() == nil
  end))
end)

H.section(':Rewind 1 then :RewindUndo', function()
  vim.cmd('edit c.txt')
  vim.cmd('edit a.txt')
  local abuf = vim.api.nvim_get_current_buf()
  local n0 = #H.notes + 1
  H.select_answers = { H.choose('apply') }
  vim.cmd('Rewind 1')
  check(':Rewind 1 finishes', wait_op(1), H.notes_since(n0))
  local last = rewind.last()
  check('rewind applied', last.applied == true, { reason = last.reason, notes = H.notes_since(n0) })
  local confirm = H.select_calls[#H.select_calls]
  check('asked for confirmation', confirm and confirm.kind == 'rewind.confirm', confirm)
  eq('files on disk are the state before turn 1', disk_state(), BEFORE_TURN1)
  eq('a.txt buffer equals the target', buf_text(abuf), BEFORE_TURN1['a.txt'])
  check('a.txt buffer is written (not modified)', not vim.bo[abuf].modified)
  local cbuf = buf_of('c.txt')
  check('c.txt buffer is gone', cbuf == nil or not vim.api.nvim_buf_is_loaded(cbuf), cbuf)
  local bbuf = buf_of('b.txt')
  check('b.txt (created) has no modified buffer left', bbuf == nil or not vim.bo[bbuf].modified)
  eq('no mismatch reported', last.mismatches, {})
  check('success message names the turn', #H.notes_matching('Rewound to turn 1', n0) == 1, H.notes_since(n0))

  n0 = #H.notes + 1
  vim.cmd('RewindUndo')
  check(':RewindUndo finishes', wait_op(2), H.notes_since(n0))
  last = rewind.last()
  check('undo applied', last.applied == true, { reason = last.reason, notes = H.notes_since(n0) })
  eq('files on disk are back to after turn 2', disk_state(), AFTER_TURN2)
  eq('a.txt buffer is back', buf_text(abuf), AFTER_TURN2['a.txt'])
  check('a.txt buffer written after undo', not vim.bo[abuf].modified)
  eq('no mismatch after undo', last.mismatches, {})
end)

-- Turn 2 added "gamma" at the end of a.txt: the undo of a rewind to the end of turn 1 adds it
-- back after the file's last line break, an insert Neovim 0.10 applies with an empty line too
-- many unless the plugin says it another way.
H.section(':Rewind turn:1:end then :RewindUndo: a line added back at the end of a file', function()
  vim.cmd('edit a.txt')
  local abuf = vim.api.nvim_get_current_buf()
  local seq = rewind.last().seq
  local n0 = #H.notes + 1
  H.select_answers = { H.choose('apply') }
  vim.cmd('Rewind turn:1:end')
  check(':Rewind turn:1:end is applied', wait_op(seq + 1) and rewind.last().applied == true, H.notes_since(n0))
  eq('files on disk are the state at the end of turn 1', disk_state(),
    { ['a.txt'] = 'alpha\nBETA\n', ['b.txt'] = 'one\n', ['c.txt'] = 'new file\n', ['keep.txt'] = 'keep\n' })
  vim.cmd('RewindUndo')
  check(':RewindUndo is applied', wait_op(seq + 2) and rewind.last().applied == true, H.notes_since(n0))
  eq('undo: gamma is back at the end of a.txt, with no empty line after it', disk_state(), AFTER_TURN2)
  eq('the a.txt buffer too, written', { buf_text(abuf), vim.bo[abuf].modified }, { AFTER_TURN2['a.txt'], false })
  eq('no mismatch after the undo', rewind.last().mismatches, {})
end)

H.section(':Rewind with pickers', function()
  local n0 = #H.notes + 1
  local calls0 = #H.select_calls
  H.select_answers = { H.pick('Turn 1'), H.pick('code'), H.choose('cancel') }
  vim.cmd('Rewind')
  check('the three pickers ran', wait(T, function()
    return #H.select_calls == calls0 + 3 and #H.notes_matching('cancelled', n0) == 1
  end), H.select_calls)
  local turns = H.select_calls[calls0 + 1]
  check('turn picker lists turn 2 first, with prompt and file count', turns and turns.items[1]:find('Turn 2', 1, true)
    and turns.items[1]:find('second prompt', 1, true) and turns.items[1]:find('2 files changed (+', 1, true), turns and turns.items)
  check('turn picker shows an age', turns and turns.items[1]:find('%d+[smhd] ago') ~= nil, turns and turns.items)
  local modes = H.select_calls[calls0 + 2]
  check('mode picker offers the five modes', modes and #modes.items == 5, modes and modes.items)
  eq('cancelling changes nothing', disk_state(), AFTER_TURN2)
end)

H.section('dirty buffer refuses', function()
  vim.cmd('edit a.txt')
  local abuf = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(abuf, 0, 1, false, { 'my unsaved edit' })
  local seq = rewind.last().seq
  local n0 = #H.notes + 1
  H.select_answers = { H.choose('apply') }
  vim.cmd('Rewind 1')
  check(':Rewind 1 answers', wait_op(seq + 1), H.notes_since(n0))
  local last = rewind.last()
  check('rewind not applied', last.applied == false, last)
  local msgs = H.notes_matching('refused', n0)
  check('user told it was refused, naming a.txt', #msgs == 1 and msgs[1].msg:find('a.txt', 1, true) ~= nil, H.notes_since(n0))
  eq('disk unchanged', disk_state(), AFTER_TURN2)
  eq('dirty buffer kept', vim.api.nvim_buf_get_lines(abuf, 0, -1, false), { 'my unsaved edit', 'BETA', 'gamma' })
  check('buffer still modified', vim.bo[abuf].modified)
  vim.cmd('edit!')
end)

H.section(':RewindCheckpoint and completion', function()
  local n0 = #H.notes + 1
  vim.cmd('RewindCheckpoint mylabel')
  check('checkpoint confirmed', wait(T, function()
    return #H.notes_matching('@mylabel', n0) > 0
  end), H.notes_since(n0))
  n0 = #H.notes + 1
  H.input_answers = { 'asked' }
  vim.cmd('RewindCheckpoint')
  check('without a label, the label is asked for', wait(T, function()
    return #H.notes_matching('checkpoint @asked saved', n0) > 0
  end), H.notes_since(n0))
  local comp
  check('completion offers @mylabel', wait(T, function()
    comp = vim.fn.getcompletion('Rewind @', 'cmdline')
    return vim.tbl_contains(comp, '@mylabel')
  end), comp)
  comp = vim.fn.getcompletion('Rewind ', 'cmdline')
  check('completion offers turn numbers, turn:N:end and ~N', vim.tbl_contains(comp, '1') and vim.tbl_contains(comp, '2')
    and vim.tbl_contains(comp, 'turn:1:end') and vim.tbl_contains(comp, '~1'), comp)
  comp = vim.fn.getcompletion('Rewind 1 co', 'cmdline')
  eq('mode completion', comp, { 'code', 'conversation' })
  comp = vim.fn.getcompletion('RewindPreview ~', 'cmdline')
  check('RewindPreview completes targets', vim.tbl_contains(comp, '~1'), comp)
end)

H.section('refresh on rewind/didChange', function()
  vim.cmd('RewindLog')
  check('log open', wait(T, function()
    return vim.bo.filetype == 'rewindlog'
  end))
  local buf = vim.api.nvim_get_current_buf()
  local out = vim.fn.system({ BIN, '--root', WS, '--store', STORE, 'checkpoint', 'from-cli' })
  check('CLI checkpoint succeeded', vim.v.shell_error == 0, out)
  check('log buffer refreshes with the CLI checkpoint', wait(T, function()
    return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n'):find('@from-cli', 1, true) ~= nil
  end), vim.api.nvim_buf_get_lines(buf, 0, -1, false))
  vim.cmd('close')
end)

H.section('an open log re-reads its ages from the server', function()
  -- The ages are the server's words; a log left open asks again every
  -- util.age_refresh_ms (a minute; shortened here), with no journal change.
  local util = require('rewind.util')
  local logview = require('rewind.logview')
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_valid(b) and vim.bo[b].filetype == 'rewindlog' then
      vim.api.nvim_buf_delete(b, { force = true })
    end
  end
  util.age_refresh_ms = 200
  vim.cmd('RewindLog')
  check('log open', wait(T, function()
    return vim.bo.filetype == 'rewindlog' and logview.view(vim.api.nvim_get_current_buf()) ~= nil
  end))
  local buf = vim.api.nvim_get_current_buf()
  -- Count the journal's changes meanwhile (each redraws the log too): the
  -- log must be re-listed more often than they explain.
  local events = require('rewind.events')
  local changed, changes = events.changed, 0
  events.changed = function(...)
    changes = changes + 1
    return changed(...)
  end
  local gen = logview.view(buf).generation or 0
  check('the open log is re-listed with nothing changed', wait(T, function()
    return (logview.view(buf).generation or 0) >= gen + changes + 2
  end), { view = logview.view(buf), changes = changes })
  events.changed = changed
  local age = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n'):match('Turn 1: first prompt  (%d+[smhd] ago)')
  check('… showing the server\'s age', age ~= nil, vim.api.nvim_buf_get_lines(buf, 0, -1, false))
  vim.api.nvim_buf_delete(buf, { force = true })
  util.age_refresh_ms = 60000
  gen = logview.view(buf) and logview.view(buf).generation
  check('a wiped log is no longer refreshed', gen == nil)
end)

H.section('errors reach the user as messages', function()
  local n0 = #H.notes + 1
  vim.cmd('Rewind 99')
  check('unknown target: an error message', wait(T, function()
    return #H.notes >= n0
  end))
  local msg = H.notes_since(n0)
  check('unknown target: message mentions the target', msg:find('99', 1, true) ~= nil, msg)
  check('unknown target: no stack trace', msg:find('stack traceback', 1, true) == nil, msg)
  n0 = #H.notes + 1
  vim.cmd('Rewind 1 sideways')
  msg = H.notes_since(n0)
  check('bad mode: clear message', msg:find('unknown mode "sideways"', 1, true) ~= nil, msg)
  n0 = #H.notes + 1
  vim.cmd('Rewind 1 nomode extra')
  msg = H.notes_since(n0)
  check('too many arguments: clear message', msg:find('too many arguments', 1, true) ~= nil, msg)
  n0 = #H.notes + 1
  vim.cmd('Rewind 1 code nosuchfile.txt')
  check('a path that is no file: the message names it', wait(T, function()
    return H.notes_since(n0):find('nosuchfile.txt', 1, true) ~= nil
  end), H.notes_since(n0))
  eq('nothing changed', disk_state(), AFTER_TURN2)
end)

H.section(':Rewind! and plan mode', function()
  local seq = rewind.last().seq
  local calls0 = #H.select_calls
  vim.cmd('Rewind 1 plan')
  check('plan mode shows the plan without applying', wait(T, function()
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(w).relative ~= '' then
        return true
      end
    end
  end))
  eq('plan mode applies nothing', rewind.last().seq, seq)
  vim.cmd('Rewind! 1')
  check(':Rewind! applies', wait_op(seq + 1) and rewind.last().applied == true, rewind.last())
  eq(':Rewind! did not ask', #H.select_calls, calls0)
  eq(':Rewind! restored the files', disk_state(), BEFORE_TURN1)
  vim.cmd('RewindUndo')
  check('undo again', wait_op(seq + 2) and rewind.last().applied == true, rewind.last())
  eq('back to after turn 2', disk_state(), AFTER_TURN2)
end)

H.section('force overwrites a dirty buffer; undo brings it back', function()
  vim.cmd('edit a.txt')
  local abuf = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(abuf, 0, 1, false, { 'my unsaved edit' })
  local seq = rewind.last().seq
  local n0 = #H.notes + 1
  H.select_answers = { H.choose('force') }
  vim.cmd('Rewind 1')
  check('forced rewind answers', wait_op(seq + 1), H.notes_since(n0))
  local confirm = H.select_calls[#H.select_calls]
  check('the question offered to overwrite the conflicting file', confirm and confirm.items[2]
    and confirm.items[2]:find('force', 1, true) ~= nil, confirm and confirm.items)
  check('forced rewind applied', rewind.last().applied == true, rewind.last().reason)
  eq('forced: files on disk are the state before turn 1', disk_state(), BEFORE_TURN1)
  eq('forced: buffer equals the target', buf_text(abuf), BEFORE_TURN1['a.txt'])
  check('forced: buffer written', not vim.bo[abuf].modified)
  vim.cmd('RewindUndo')
  check('undo of the forced rewind', wait_op(seq + 2) and rewind.last().applied == true, rewind.last().reason)
  eq('undo brings the unsaved text back into the buffer', vim.api.nvim_buf_get_lines(abuf, 0, -1, false),
    { 'my unsaved edit', 'BETA', 'gamma' })
  eq('and onto the disk', H.read(path('a.txt')), 'my unsaved edit\nBETA\ngamma\n')
  eq('undo restored the other files', { b = H.read(path('b.txt')) or false, c = H.read(path('c.txt')) },
    { b = false, c = 'new file\n' })
end)

H.section('line endings, empty files, no final newline', function()
  -- A third turn made on disk through the CLI while the server runs.
  local function cli(...)
    local out = vim.fn.system(vim.list_extend({ BIN, '--root', WS, '--store', STORE }, { ... }))
    return vim.v.shell_error == 0, out
  end
  local function write(rel, bytes)
    local f = assert(io.open(path(rel), 'wb'))
    f:write(bytes)
    f:close()
  end
  eq('crlf.txt and empty.txt exist from the start', { H.read(path('crlf.txt')), H.read(path('empty.txt')) }, { 'one\r\ntwo\r\n', '' })
  local ok, out = cli('turn', 'start', '--prompt', 'line endings')
  check('CLI turn start', ok, out)
  write('crlf.txt', 'one\r\nTWO\r\n')
  write('empty.txt', 'filled\n')
  write('noeol.txt', 'tail')
  ok, out = cli('turn', 'end')
  check('CLI turn end', ok, out)
  -- Open crlf.txt after the turn, so its buffer holds what is on disk; empty.txt and
  -- noeol.txt stay closed (the edit loads them; the plugin writes and unloads them).
  vim.cmd('edit! crlf.txt')
  eq('crlf.txt opens as dos', vim.bo[buf_of('crlf.txt')].fileformat, 'dos')
  local seq = rewind.last().seq
  local n0 = #H.notes + 1
  vim.cmd('Rewind! ~1')
  check('rewind to the start of the latest turn', wait_op(seq + 1) and rewind.last().applied == true, H.notes_since(n0))
  eq('CRLF file restored byte for byte', H.read(path('crlf.txt')), 'one\r\ntwo\r\n')
  eq('CRLF buffer keeps dos line endings', vim.bo[buf_of('crlf.txt')].fileformat, 'dos')
  eq('file emptied byte for byte', H.read(path('empty.txt')), '')
  eq('created file without final newline deleted', H.read(path('noeol.txt')), nil)
  eq('no mismatch after rewind', rewind.last().mismatches, {})
  local eb = buf_of('empty.txt')
  check('buffer the edit loaded for empty.txt is unloaded again', eb == nil or not vim.api.nvim_buf_is_loaded(eb))

  -- An empty file open in Neovim: Neovim's LSP client reports its text as "\n"
  -- (lines {""} plus 'eol'), while the file holds "". The server takes that buffer for
  -- the empty file: the undo is no conflict and fills the buffer.
  vim.cmd('edit empty.txt')
  n0 = #H.notes + 1
  vim.cmd('RewindUndo')
  check('undo with an empty file open in a buffer', wait_op(seq + 2) and rewind.last().applied == true,
    { reason = rewind.last().reason, notes = H.notes_since(n0) })
  eq('the undo filled the open buffer', vim.api.nvim_buf_get_lines(buf_of('empty.txt'), 0, -1, false), { 'filled' })
  eq('CRLF file back byte for byte', H.read(path('crlf.txt')), 'one\r\nTWO\r\n')
  eq('empty file filled byte for byte', H.read(path('empty.txt')), 'filled\n')
  eq('file without final newline recreated byte for byte', H.read(path('noeol.txt')), 'tail')
  eq('no mismatch after undo', rewind.last().mismatches, {})
  vim.cmd('edit ' .. vim.fn.fnameescape(path('a.txt')))
end)

H.section('conversation mode leaves files alone', function()
  local seq = rewind.last().seq
  local before = disk_state()
  local n0 = #H.notes + 1
  vim.cmd('Rewind! 2 conversation')
  check('conversation rewind answers', wait_op(seq + 1), H.notes_since(n0))
  check('conversation rewind applied', rewind.last().applied == true, rewind.last().reason)
  eq('files unchanged', disk_state(), before)
  check('message says the conversation moved', #H.notes_matching('conversation back', n0) == 1, H.notes_since(n0))
end)

H.section(':RewindResume after a conversation rewind; sessions and reports in :RewindLog', function()
  -- A Claude Code session's turn, fed to the hook as Claude Code would, with its transcript.
  local sid = 'ab12cd34-5555-4666-8777-888899990000'
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, 'p')
  local transcript = dir .. '/' .. sid .. '.jsonl'
  local function line(t)
    t.sessionId = sid
    local f = assert(io.open(transcript, 'a'))
    f:write(vim.fn.json_encode(t) .. '\n')
    f:close()
  end
  local function hook(ev)
    ev.session_id, ev.transcript_path, ev.cwd = sid, transcript, WS
    return vim.fn.system({ BIN, '--root', WS, '--store', STORE, 'hook', 'claude-code' }, vim.fn.json_encode(ev))
  end
  line({ type = 'user', uuid = 'u1', message = { role = 'user', content = 'look around' } })
  line({ type = 'assistant', uuid = 'a1', parentUuid = 'u1', message = { role = 'assistant', content = { { type = 'text', text = 'Looked.' } } } })
  local before = H.read(transcript)
  eq('SessionStart prints nothing', hook({ hook_event_name = 'SessionStart', source = 'startup' }), '')
  eq('UserPromptSubmit prints nothing', hook({ hook_event_name = 'UserPromptSubmit', prompt = 'resume me later' }), '')
  line({ type = 'user', uuid = 'u2', parentUuid = 'a1', message = { role = 'user', content = 'resume me later' } })
  hook({ hook_event_name = 'Stop' })
  local log = vim.fn.json_decode(vim.fn.system({ BIN, '--root', WS, '--store', STORE, '--json', 'log' }))
  local n
  for _, t in ipairs(log.turns) do
    if t.prompt == 'resume me later' then
      n = t.turn
    end
  end
  check('the hook recorded the turn', n ~= nil, log.turns)

  vim.cmd('RewindLog')
  check(':RewindLog shows the turn\'s agent session', wait(T, function()
    local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
    return vim.bo.filetype == 'rewindlog' and text:find('resume me later  %d+[smhd] ago  hook  %[claude%-code ab12cd34%]') ~= nil
  end), vim.api.nvim_buf_get_lines(0, 0, -1, false))
  vim.cmd('close')

  local seq = rewind.last().seq
  local n0 = #H.notes + 1
  vim.cmd('Rewind! ' .. n .. ' both')
  check('conversation rewind answers', wait_op(seq + 1), H.notes_since(n0))
  local conv = rewind.last().conversation or {}
  check('the result forks the Claude Code conversation', conv.agent == 'claude-code' and conv.resume == 'claude --resume ' .. tostring(conv.session), conv)
  local forked = conv.transcript and H.read(conv.transcript) or ''
  eq('the fork is the transcript before the prompt, only sessionId changed', forked,
    (before:gsub(vim.pesc(sid), tostring(conv.session))))
  check('the message points to :RewindResume', #H.notes_matching(':RewindResume', n0) == 1, H.notes_since(n0))

  local buf = require('rewind.commands').RewindResume()
  check(':RewindResume opens a terminal in the root running the resume command', buf ~= nil
    and vim.bo[buf].buftype == 'terminal' and vim.api.nvim_buf_get_name(buf):find(vim.pesc(conv.resume or '?')) ~= nil
    and vim.fn.getcwd() ~= nil and vim.api.nvim_buf_get_name(buf):find(vim.pesc(WS), 1) ~= nil,
    buf and vim.api.nvim_buf_get_name(buf))
  vim.cmd('stopinsert')
  if buf then
    -- `claude` is not installed here: let its shell end by itself before the
    -- buffer goes, rather than hang it up (0.7.2 has crashed on that under load).
    local job = vim.b[buf].terminal_job_id
    if job then
      vim.fn.jobwait({ job }, 5000)
    end
    vim.cmd('bdelete! ' .. buf)
  end
  seq = rewind.last().seq
  vim.cmd('RewindUndo')
  check('the conversation rewind is undone', wait_op(seq + 1) and rewind.last().applied == true, H.notes_since(n0))

  vim.fn.system({ BIN, '--root', WS, '--store', STORE, 'rewind', '1', '--mode', 'summarize', '--report', 'greeting first\nthen the rest' })
  vim.cmd('RewindLog')
  check(':RewindLog lists the kept report, whole', wait(T, function()
    vim.cmd('normal R')
    local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
    return text:find('Reports', 1, true) ~= nil and text:find('Report since turn 1', 1, true) ~= nil
      and text:find('    greeting first\n    then the rest', 1, true) ~= nil
  end), vim.api.nvim_buf_get_lines(0, 0, -1, false))
  vim.cmd('close')
  vim.cmd('edit ' .. vim.fn.fnameescape(path('a.txt')))
end)

H.section(':RewindResume runs the forked agent\'s own resume command (Gemini CLI)', function()
  -- A Gemini CLI session of two prompts fed to `rewind-lsp hook gemini` as Gemini CLI runs it, its
  -- session file written as Gemini CLI writes one (a header, then message records).
  local sid = '9e3d1c2b-5a4f-4e6d-8c7b-0a1b2c3d4e5f'
  local dir = vim.fn.tempname() .. '/chats'
  vim.fn.mkdir(dir, 'p')
  local file = dir .. '/session-2026-11-24T20-37-' .. sid:sub(1, 8) .. '.jsonl'
  local function record(t) -- compact, as Gemini CLI writes (JSON.stringify)
    local f = assert(io.open(file, 'a'))
    f:write(vim.json.encode(t) .. '\n')
    f:close()
  end
  local function hook(ev)
    ev.session_id, ev.transcript_path, ev.cwd = sid, file, WS
    return vim.fn.system({ BIN, '--root', WS, '--store', STORE, 'hook', 'gemini' }, vim.fn.json_encode(ev))
  end
  record({ sessionId = sid, projectHash = 'p', startTime = '2026-11-24T20:37:00.000Z', lastUpdated = '2026-11-24T20:37:00.000Z', kind = 'main' })
  eq('BeforeAgent prints nothing', hook({ hook_event_name = 'BeforeAgent', prompt = 'gemini looks around' }), '')
  record({ id = 'g-u1', timestamp = '2026-11-24T20:37:01.000Z', type = 'user', content = { { text = 'gemini looks around' } } })
  record({ id = 'g-a1', timestamp = '2026-11-24T20:37:02.000Z', type = 'gemini', content = 'Looked around.' })
  hook({ hook_event_name = 'AfterAgent' })
  local before = H.read(file)
  hook({ hook_event_name = 'BeforeAgent', prompt = 'gemini resumes later' })
  record({ id = 'g-u2', timestamp = '2026-11-24T20:37:03.000Z', type = 'user', content = { { text = 'gemini resumes later' } } })
  hook({ hook_event_name = 'AfterAgent' })
  local log = vim.fn.json_decode(vim.fn.system({ BIN, '--root', WS, '--store', STORE, '--json', 'log' }))
  local n
  for _, t in ipairs(log.turns) do
    if t.prompt == 'gemini resumes later' then
      n = t.turn
    end
  end
  check('the Gemini CLI hook recorded the turn', n ~= nil, log.turns)

  local seq = rewind.last().seq
  local n0 = #H.notes + 1
  vim.cmd('Rewind! ' .. n .. ' both')
  check('conversation rewind answers', wait_op(seq + 1), H.notes_since(n0))
  local conv = rewind.last().conversation or {}
  check('the result forks the Gemini CLI session', conv.agent == 'gemini' and conv.resume == 'gemini --resume ' .. tostring(conv.session), conv)
  local forked = conv.transcript and H.read(conv.transcript) or ''
  eq('the fork is the session file before the prompt, only sessionId changed', forked, (before:gsub(vim.pesc(sid), tostring(conv.session))))

  local buf = require('rewind.commands').RewindResume()
  check(':RewindResume runs `gemini --resume <id>` in a terminal in the root', buf ~= nil
    and vim.bo[buf].buftype == 'terminal' and vim.api.nvim_buf_get_name(buf):find(vim.pesc(conv.resume or '?')) ~= nil,
    buf and vim.api.nvim_buf_get_name(buf))
  vim.cmd('stopinsert')
  if buf then
    -- `gemini` is not installed here: let its shell end by itself before the buffer goes.
    local job = vim.b[buf].terminal_job_id
    if job then
      vim.fn.jobwait({ job }, 5000)
    end
    vim.cmd('bdelete! ' .. buf)
  end
  seq = rewind.last().seq
  vim.cmd('RewindUndo')
  check('the conversation rewind is undone', wait_op(seq + 1) and rewind.last().applied == true, H.notes_since(n0))
  vim.cmd('edit ' .. vim.fn.fnameescape(path('a.txt')))
end)

H.section('one client per root', function()
  local other = vim.fn.tempname()
  vim.fn.mkdir(other, 'p')
  other = vim.fn.fnamemodify(other, ':p'):gsub('/$', '')
  vim.fn.writefile({ '' }, other .. '/.rewindignore')
  vim.fn.writefile({ 'x' }, other .. '/x.txt')
  rewind.setup({
    cmd = { BIN },
    store_dir = function(root)
      return root == WS and STORE or nil
    end,
  })
  vim.cmd('edit ' .. vim.fn.fnameescape(other .. '/x.txt'))
  check('a file in another root starts a second client', wait(T, function()
    local c = rewind.client()
    return c and c.id ~= client.id and require('rewind.client').is_ready(c)
  end))
  local c2 = rewind.client()
  eq('second client root', c2 and c2.config.root_dir, other)
  eq('first client still serves the workspace', rewind.client(WS).id, client.id)
  check('x.txt attached only to the second client', vim.lsp.buf_is_attached(0, c2.id)
    and not vim.lsp.buf_is_attached(0, client.id))
  vim.cmd('RewindLog')
  check('the log of the other root is empty', wait(T, function()
    return vim.bo.filetype == 'rewindlog'
      and table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n'):find('No turns recorded yet.', 1, true) ~= nil
  end), vim.api.nvim_buf_get_lines(0, 0, -1, false))
  vim.cmd('close')
  vim.cmd('edit ' .. vim.fn.fnameescape(path('a.txt')))
end)

H.section(':checkhealth rewind', function()
  vim.cmd('checkhealth rewind')
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  local text = table.concat(lines, '\n')
  check('health report has OK lines', text:find('OK', 1, true) ~= nil, lines)
  check('health report has no ERROR', text:find('ERROR', 1, true) == nil, lines)
  check('health report shows the running client', text:find('client %d+ for ' .. vim.pesc(WS)) ~= nil, lines)
end)

H.finish()
