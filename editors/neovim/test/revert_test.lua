-- Reverting one turn and agent blame in Neovim: :RewindBlame, :RewindRevert (keep the
-- later turns), the
-- refusal naming `user`, :RewindUndo, and the server's hover on agent lines.
--
-- run.sh gives an empty workspace; the turns are made here with the CLI, as an
-- agent hook would, before the server starts:
--   W writes story.txt (nine lines); F shouts line 1; M shouts line 5 and
--   creates made.txt; L shouts line 9.
-- env: REWIND_TEST_WS, REWIND_TEST_BIN, REWIND_TEST_STORE.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/harness.lua')
local check, eq, wait = H.check, H.eq, H.wait

local WS = assert(os.getenv('REWIND_TEST_WS'), 'REWIND_TEST_WS')
local BIN = assert(os.getenv('REWIND_TEST_BIN'), 'REWIND_TEST_BIN')
local STORE = assert(os.getenv('REWIND_TEST_STORE'), 'REWIND_TEST_STORE')
local T = 15000

local LINES = { 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine' }
local function story(edits)
  local out = {}
  for i, l in ipairs(LINES) do
    out[i] = edits[i] or l
  end
  return table.concat(out, '\n') .. '\n'
end
local ws = H.workspace(WS, BIN, STORE)
local path, write, cli = ws.path, ws.write, ws.cli
local function turn(prompt, edit)
  cli('turn', 'start', '--prompt', prompt)
  edit()
  cli('turn', 'end')
end

local rewind = require('rewind')
local blame = require('rewind.blame')

local turns = {}
H.section('setup and turns', function()
  vim.cmd('cd ' .. vim.fn.fnameescape(WS))
  H.capture_notify()
  H.fake_ui()
  check(':RewindRevert and :RewindBlame exist', vim.fn.exists(':RewindRevert') == 2 and vim.fn.exists(':RewindBlame') == 2)
  write('.rewindignore', '') -- a root marker: opening a file starts the server
  turn('story: write it', function()
    write('story.txt', story({}))
  end)
  turn('story: shout the first line', function()
    write('story.txt', story({ [1] = 'ONE' }))
  end)
  turn('story: shout the middle line and add a file', function()
    write('story.txt', story({ [1] = 'ONE', [5] = 'FIVE' }))
    write('made.txt', 'made by the middle turn\n')
  end)
  turn('story: shout the last line', function()
    write('story.txt', story({ [1] = 'ONE', [5] = 'FIVE', [9] = 'NINE' }))
  end)
  for _, t in ipairs(vim.fn.json_decode(cli('--json', 'log')).turns) do
    turns[t.prompt] = t.turn
  end
  eq('four turns recorded', vim.tbl_count(turns), 4)
  check('setup()', rewind.setup({ cmd = { BIN }, store_dir = STORE, log_level = 'debug', autoTurnQuietMs = 60000 }) == true)
  vim.cmd('edit story.txt')
  check('the client starts', wait(T, function()
    return rewind.client() ~= nil and require('rewind.client').is_ready(rewind.client())
  end), H.notes_since(1))
end)

local W, F, M, L
local buf
H.section(':RewindBlame', function()
  W, F, M, L = turns['story: write it'], turns['story: shout the first line'],
    turns['story: shout the middle line and add a file'], turns['story: shout the last line']
  buf = vim.api.nvim_get_current_buf()
  vim.cmd('RewindBlame')
  check('blame shows the turn of each line', wait(T, function()
    local l = blame.lines(buf)
    return l[0] == F and l[4] == M and l[8] == L and l[1] == W
  end), blame.lines(buf))
  local marks = vim.api.nvim_buf_get_extmarks(buf, blame.ns, { 4, 0 }, { 4, -1 }, { details = true })
  local text = marks[1] and marks[1][4].virt_text[1][1] or ''
  check('the note is the turn\'s title and age, as the server wrote them', text:find('Turn ' .. M .. ': story: shout the middle line', 1, true) == 1
    and text:find(' · %d+[smhd] ago$') ~= nil, text)

  -- Any LSP client: hover on an agent's line names the turn.
  local res = vim.lsp.buf_request_sync(buf, 'textDocument/hover', {
    textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = 8, character = 0 },
  }, T) or {}
  local hover = ''
  for _, r in pairs(res) do
    if r.result and r.result.contents then
      hover = hover .. (r.result.contents.value or '')
    end
  end
  check('hover on an agent line shows its turn and prompt', hover:find('Agent turn ' .. L, 1, true) ~= nil
    and hover:find('shout the last line', 1, true) ~= nil, hover)

  -- The person edits line 5 (unsaved): it is nobody's turn any more.
  vim.api.nvim_buf_set_lines(buf, 4, 5, false, { 'FIVE (mine)' })
  check('blame follows the edit: the line the person edited names no turn', wait(T, function()
    local l = blame.lines(buf)
    return l[4] == nil and l[0] == F and l[8] == L
  end), blame.lines(buf))
end)

H.section(':RewindRevert refused over the person\'s edit', function()
  local from = #H.notes + 1
  vim.cmd('RewindRevert ' .. M)
  check('the refusal names the file and user', wait(T, function()
    return #H.notes_matching('Cannot revert turn ' .. M, from) > 0
  end), H.notes_since(from))
  local note = (H.notes_matching('Cannot revert', from)[1] or {}).msg or ''
  check('… "M story.txt  (conflict: changed since by user)"', note:find('M story.txt  (conflict: changed since by user)', 1, true) ~= nil, note)
  eq('nothing changed on disk', { H.read(path('story.txt')), H.read(path('made.txt')) },
    { story({ [1] = 'ONE', [5] = 'FIVE', [9] = 'NINE' }), 'made by the middle turn\n' })
  vim.cmd('edit!') -- the person drops the edit
end)

H.section(':RewindRevert keeps the later turns', function()
  local seq = rewind.last().seq
  H.select_calls = {}
  H.select_answers = { H.pick('Turn ' .. M), H.pick('Revert') }
  vim.cmd('RewindRevert')
  check('the revert is applied', wait(T, function()
    return rewind.last().seq > seq
  end), H.notes_since(1))
  local picked = H.select_calls[1] or { items = {} }
  local only_turns = #picked.items == 4
  for _, it in ipairs(picked.items) do
    only_turns = only_turns and it:find('^Turn') ~= nil
  end
  check('without a target, a picker of the turns', only_turns, picked.items)
  local rec = rewind.last()
  check('recorded as an applied revert', rec.op == 'revert' and rec.applied, rec)
  eq('turns before and after kept exactly, the middle one taken back', H.read(path('story.txt')), story({ [1] = 'ONE', [9] = 'NINE' }))
  eq('the file the turn created is gone', H.read(path('made.txt')), nil)
  eq('the buffer shows it, written', { vim.api.nvim_buf_get_lines(buf, 4, 5, false)[1], vim.bo[buf].modified }, { 'five', false })
  check('blame after the revert: first and last turns on their lines, nothing on the reverted one', wait(T, function()
    local l = blame.lines(buf)
    return l[4] == nil and l[0] == F and l[8] == L
  end), blame.lines(buf))
end)

H.section(':RewindUndo brings the revert back', function()
  local seq = rewind.last().seq
  vim.cmd('RewindUndo')
  check('undo applied', wait(T, function()
    return rewind.last().seq > seq and rewind.last().applied
  end), H.notes_since(1))
  eq('story.txt back', H.read(path('story.txt')), story({ [1] = 'ONE', [5] = 'FIVE', [9] = 'NINE' }))
  eq('made.txt back', H.read(path('made.txt')), 'made by the middle turn\n')
  vim.cmd('RewindBlame')
  check(':RewindBlame again hides the notes', wait(2000, function()
    return #vim.api.nvim_buf_get_extmarks(buf, blame.ns, 0, -1, {}) == 0
  end))
end)

H.finish()
