-- An agent's own rewind in Neovim: the plugin's answer to `rewind/agentRewind`
-- (the message naming `:Rewind {entry} code {path...}`, or what rewind-lsp
-- restored), and `:Rewind` limited to paths, against the real server.
--
-- run.sh gives an empty workspace; the turns are made here with the CLI, as an
-- agent hook would: turn 1 writes a.txt; turn 2 writes b.txt and c.txt.
-- Then the session the real Claude Code wrote in agent/testdata/claude-rewind
-- (prompt one, prompt two, Esc Esc back to before prompt two, prompt three),
-- its hooks replayed into claude/ while the plugin's server runs: Claude Code
-- restored no file, so the server sends rewind/agentRewind, and the command the
-- message names restores the files byte for byte; :RewindUndo takes it back.
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

--- plain replaces every occurrence of `from` in s with `to`, as text.
local function plain(s, from, to)
  local out, i = {}, 1
  while true do
    local a, b = s:find(from, i, true)
    if not a then
      break
    end
    out[#out + 1] = s:sub(i, a - 1) .. to
    i = b + 1
  end
  return table.concat(out) .. s:sub(i)
end

--- replay plays the fixture's session back in folder `cwd`: every hook payload
--- as Claude Code sent it (its folders renamed), the transcript as it stood at
--- each event, and the tools' effects (Write, Edit, the shell's commands).
--- Between prompt two and prompt three the person edits c.txt.
local function replay(cwd)
  local fixture = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h:h') .. '/agent/testdata/claude-rewind/'
  local home = WS .. '-claude-home'
  local function own(s)
    return plain(plain(s, '/w/project', cwd), '/w/home', home)
  end
  local lines = {}
  for l in own(H.read(fixture .. 'transcript.jsonl')):gmatch('[^\n]*\n') do
    lines[#lines + 1] = l
  end
  local forks = {}
  for _, p in ipairs(vim.fn.json_decode(H.read(fixture .. 'prompts.json'))) do
    forks[#forks + 1] = p.forkLines
  end
  local function put(file, text)
    vim.fn.mkdir(vim.fn.fnamemodify(file, ':h'), 'p')
    local f = assert(io.open(file, 'wb'))
    f:write(text)
    f:close()
  end
  local transcript
  local function up_to(n)
    put(transcript, table.concat(lines, '', 1, math.min(n, #lines)))
  end
  local function tool(p)
    local i = p.tool_input
    if p.tool_name == 'Write' then
      put(i.file_path, i.content)
    elseif p.tool_name == 'Edit' then
      put(i.file_path, plain(H.read(i.file_path), i.old_string, i.new_string))
    elseif p.tool_name == 'Bash' then
      vim.fn.system('cd ' .. vim.fn.shellescape(p.cwd) .. ' && ' .. i.command)
    end
  end
  local prompt, starts, done = 0, 0, {}
  for l in H.read(fixture .. 'hooks.jsonl'):gmatch('[^\n]+') do
    l = own(l)
    -- The payload is sent as Claude Code wrote it, not decoded and encoded again.
    local raw = l:match('"payload":(.*)}%s*$')
    local p = vim.fn.json_decode(raw)
    local event = vim.fn.json_decode(l).event
    transcript = p.transcript_path
    -- A tool runs after its PreToolUse hook, before its PostToolUse (the hooks
    -- see PreToolUse only for the shell).
    if event == 'PostToolUse' and not done[p.tool_use_id] then
      tool(p)
    end
    if event == 'UserPromptSubmit' then
      prompt = prompt + 1
      up_to(forks[prompt])
    elseif event == 'SessionStart' then
      -- The third start is Claude Code run again after prompt two (its rewind).
      starts = starts + 1
      if starts == 3 then
        put(cwd .. '/c.txt', "the person's\n")
      end
    elseif prompt > 0 then
      up_to(forks[prompt + 1] or #lines)
    end
    local out = vim.fn.system({ BIN, '--root', WS, '--store', STORE, 'hook', 'claude-code' }, raw)
    assert(vim.v.shell_error == 0, 'hook ' .. event .. ': ' .. out)
    if event == 'PreToolUse' then
      tool(p)
      done[p.tool_use_id] = true
    end
  end
end

H.section('rewind/agentRewind from the server after Claude Code rewound and restored nothing', function()
  local mark = #H.notes
  local cwd = path('claude')
  vim.fn.mkdir(cwd, 'p')
  replay(cwd)
  local files = { 'claude/a.txt', 'claude/b.txt', 'claude/c.txt', 'claude/d.txt' }
  local function disk()
    local t = {}
    for i, f in ipairs(files) do
      t[i] = H.read(path(f)) or '<missing>'
    end
    return t
  end
  eq('Claude Code restored no file', disk(), { 'two\n', 'b2\n', "the person's\n", 'd3\n' })
  check('the server tells the plugin, which names the files and :Rewind', wait(T, function()
    return #H.notes_matching('restored no files', mark + 1) > 0
  end), H.notes_since(mark + 1))
  local msg = (H.notes_matching('restored no files', mark + 1)[1] or {}).msg or ''
  check('the message names prompt two and the three files it did not restore',
    msg:find('prompt two', 1, true) and msg:find('claude/a.txt, claude/b.txt, claude/c.txt', 1, true), msg)
  local args = msg:match(':Rewind (%S+ code claude/a%.txt claude/b%.txt claude/c%.txt)')
  check('the message names :Rewind {entry} code {paths}', args ~= nil, msg)
  local seq = rewind.last().seq
  vim.cmd('Rewind! ' .. args)
  check('the named :Rewind applies', wait(T, function()
    return rewind.last().seq > seq
  end) and rewind.last().applied == true, rewind.last())
  eq('the files are back as before prompt two, prompt three\'s d.txt kept', disk(), { 'one\n', 'b1\n', '<missing>', 'd3\n' })
  seq = rewind.last().seq
  vim.cmd('RewindUndo')
  check(':RewindUndo applies', wait(T, function()
    return rewind.last().seq > seq
  end) and rewind.last().applied == true, rewind.last())
  eq('undo brings them back as Claude Code left them', disk(), { 'two\n', 'b2\n', "the person's\n", 'd3\n' })
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
