-- An agent's own rewind in Neovim: the plugin's answer to `rewind/agentRewind`
-- (the message naming `:Rewind {entry} code {path...}`, or what rewind-lsp
-- restored), and `:Rewind` limited to paths, against the real server.
--
-- run.sh gives an empty workspace; the turns are made here with the CLI, as an
-- agent hook would: turn 1 writes a.txt; turn 2 writes b.txt and c.txt.
-- (The server sending rewind/agentRewind when Claude Code's hook completes its
-- rewind is tested in Go: lsp/e2e_agentrewind_test.go.)
-- env: REWIND_TEST_WS, REWIND_TEST_BIN, REWIND_TEST_STORE.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/harness.lua')
local check, eq, wait = H.check, H.eq, H.wait

local WS = assert(os.getenv('REWIND_TEST_WS'), 'REWIND_TEST_WS')
local BIN = assert(os.getenv('REWIND_TEST_BIN'), 'REWIND_TEST_BIN')
local STORE = assert(os.getenv('REWIND_TEST_STORE'), 'REWIND_TEST_STORE')
local T = 15000

local ws = H.workspace(WS, BIN, STORE)
local path, write, cli = ws.path, ws.write, ws.cli

local rewind = require('rewind')
local events = require('rewind.events')
local two

H.section('setup and turns', function()
  vim.cmd('cd ' .. vim.fn.fnameescape(WS))
  H.capture_notify()
  H.fake_ui()
  write('.rewindignore', '')
  write('keep.txt', 'keep\n')
  cli('turn', 'start', '--prompt', 'one')
  write('a.txt', 'a\n')
  cli('turn', 'end')
  cli('turn', 'start', '--prompt', 'two: add b and c')
  write('b.txt', 'b\n')
  write('c.txt', 'c\n')
  cli('turn', 'end')
  two = vim.fn.json_decode(cli('--json', 'log')).turns[2].entry
  check('setup()', rewind.setup({ cmd = { BIN }, store_dir = STORE, log_level = 'debug', autoTurnQuietMs = 60000 }) == true)
  vim.cmd('edit keep.txt')
  check('the client starts', wait(T, function()
    return rewind.client() ~= nil and require('rewind.client').is_ready(rewind.client())
  end), H.notes_since(1))
end)

H.section('rewind/agentRewind', function()
  local client = rewind.client()
  local handler = client.config.handlers['rewind/agentRewind']
  check('the plugin handles rewind/agentRewind', type(handler) == 'function')
  local mark = #H.notes
  -- The message and the actions are the server's (package words, lsp/notify.go).
  handler(nil, {
    root = WS, entry = 'e1', agent = 'claude-code', session = 's1', turn = 2, prompt = 'two: add b and c\nmore',
    target = two, mode = 'conversation', files = {}, kept = {}, offered = { 'b.txt' },
    sessionLabel = 'claude-code s1', title = 'Claude Code rewound to turn 2 (two: add b and c…), conversation only',
    message = 'Claude Code rewound its conversation to turn 2 (two: add b and c…) but restored no files; 1 file still differs: b.txt.',
    actions = { { id = 'rewindFiles', title = 'Rewind the Files' }, { id = 'showDiff', title = 'Show Diff' } },
  }, { client_id = client.id })
  local want = 'rewind: Claude Code rewound its conversation to turn 2 (two: add b and c…) but restored no files; '
    .. '1 file still differs: b.txt. :Rewind ' .. two .. ' code b.txt restores them.'
  check('the message names :Rewind with the target and the files', wait(T, function()
    return H.notes[mark + 1] and H.notes[mark + 1].msg == want
  end), H.notes_since(mark + 1))
  eq('it is kept for the log', events.agent_rewinds and #events.agent_rewinds, 1)
  local restored = 'Claude Code rewound to turn 2 (p) and restored its own edits; rewind-lsp restored what its shell changed too: b.txt.'
    .. ' Left as they are (changed since by someone else): c.txt.'
  eq('restored files are named, and the undo',
    events.agent_rewind_message({ agent = 'claude-code', turn = 2, prompt = 'p', mode = 'both', files = { 'b.txt' }, kept = { 'c.txt' },
      message = restored, actions = { { id = 'undo', title = 'Undo' } } }),
    restored .. ' :RewindUndo takes it back.')
  eq('nothing left to do: the sentence alone',
    events.agent_rewind_message({ agent = 'claude-code', turn = 2, mode = 'both', message = 'Claude Code rewound its conversation to turn 2; no file needed restoring.', actions = {} }),
    'Claude Code rewound its conversation to turn 2; no file needed restoring.')
end)

H.section(':Rewind target code path', function()
  local seq = rewind.last().seq
  vim.cmd('Rewind! ' .. two .. ' code b.txt')
  check('the rewind of one file applies', wait(T, function()
    return rewind.last().seq > seq
  end))
  eq('b.txt is gone (it did not exist before turn 2)', H.read(path('b.txt')), nil)
  eq('c.txt is left: only the named file was rewound', H.read(path('c.txt')), 'c\n')
  eq('a.txt is left', H.read(path('a.txt')), 'a\n')
end)

H.finish()
