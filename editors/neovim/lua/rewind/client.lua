-- rewind.client: one rewind-lsp client per workspace root.
--
-- Clients start with vim.lsp.start where it exists (0.8+), else with
-- vim.lsp.start_client + vim.lsp.buf_attach_client (0.7). Every request the
-- plugin makes goes to its own client, never through vim.lsp.buf.* (which would
-- reach every server attached to the buffer).
local config = require('rewind.config')
local log = require('rewind.log')
local util = require('rewind.util')

local M = {}

M.NAME = 'rewind-lsp'

local by_root = {} -- root -> client id
local root_of = {} -- client id -> root
local ready = {} -- client id -> true once initialized
local waiters = {} -- client id -> list of callbacks(ok, err)
local stopping = {} -- client id -> true when we asked it to stop
local trackers = {} -- client id -> list of active apply trackers
local warned_missing = false

--- Client capabilities: Neovim's own, plus what the server needs to send
--- creates and deletes inside one WorkspaceEdit.
function M.capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.workspace = caps.workspace or {}
  caps.workspace.applyEdit = true
  caps.workspace.workspaceEdit = caps.workspace.workspaceEdit or {}
  caps.workspace.workspaceEdit.documentChanges = true
  caps.workspace.workspaceEdit.resourceOperations = { 'create', 'rename', 'delete' }
  return caps
end

-- ---------------------------------------------------------------------------
-- Server -> client messages.

local function edit_paths(edit)
  local paths = {}
  local function add(uri)
    if type(uri) == 'string' and uri:match('^file:') then
      paths[#paths + 1] = util.abspath(vim.uri_to_fname(uri))
    end
  end
  if type(edit) ~= 'table' then
    return paths
  end
  for _, change in ipairs(util.list(edit.documentChanges)) do
    if type(change) == 'table' then
      if change.textDocument then
        add(change.textDocument.uri)
      elseif change.kind == 'rename' then
        add(change.oldUri)
        add(change.newUri)
      else
        add(change.uri)
      end
    end
  end
  if type(edit.changes) == 'table' then
    for uri in pairs(edit.changes) do
      add(uri)
    end
  end
  return paths
end

-- Whether a document is empty ("") when the edit reaches it.
local function doc_is_empty(path, created)
  if created[path] then
    return true
  end
  local buf = util.find_buf(path)
  if buf and vim.api.nvim_buf_is_loaded(buf) then
    return util.buf_bytes(buf) == ''
  end
  local st = util.uv.fs_stat(path)
  return st == nil or st.size == 0
end

-- The lines of a document as Neovim holds them (its buffer, else the file,
-- which Neovim loads as it is), and whether it ends with a line break; nil
-- when it cannot be read.
local function doc_lines(path)
  local buf = util.find_buf(path)
  if buf and vim.api.nvim_buf_is_loaded(buf) then
    local bo = vim.bo[buf]
    return vim.api.nvim_buf_get_lines(buf, 0, -1, false), not bo.binary and (bo.eol or bo.fixeol)
  end
  local text = util.read_file(path)
  if not text then
    return nil
  end
  return util.split_lines(text), text:sub(-1) == '\n'
end

-- Neovim 0.10 turns an insert at the end of a document that ends with a line
-- break (at N:0, just past its N lines) into those lines and then the new
-- ones and an empty one: :write saves an empty line too many. Replacing the
-- last line instead, from its start to N:0 with its own text in front of the
-- insert, is the same edit, and Neovim drops that empty line as it does for
-- every edit that reaches past the end. Only when no other edit of the
-- document reaches the last line (they would overlap).
local function fix_append(path, edits)
  -- The candidate: an insert of whole lines at the start of a line, the last edit of the document.
  local last, at = -1, nil
  for i, e in ipairs(edits) do
    local r = type(e) == 'table' and e.range
    if not (r and r.start and r['end'] and type(e.newText) == 'string') then
      return
    end
    if r['end'].line >= last then
      last = r['end'].line
      local insert = r.start.line == r['end'].line and r.start.character == 0 and r['end'].character == 0
      at = insert and e.newText:sub(-1) == '\n' and i or nil
    end
  end
  if not at then
    return
  end
  local lines, eol = doc_lines(path)
  local n = lines and #lines or 0
  if n == 0 or not eol or edits[at].range.start.line ~= n then
    return
  end
  for i, e in ipairs(edits) do
    if i ~= at and e.range['end'].line >= n - 1 then
      return
    end
  end
  edits[at] = {
    range = { start = { line = n - 1, character = 0 }, ['end'] = { line = n, character = 0 } },
    newText = lines[n] .. '\n' .. edits[at].newText,
  }
end

-- Neovim (0.7 to 0.12) turns an insert of "text\n" at 0:0 of an empty buffer
-- into the lines {"text", ""}, which :write saves as "text\n\n". Stretching
-- the range to 1:0 (past the end) makes Neovim drop that empty last line, as
-- it does for appends. An insert without a final newline needs 'noeol'.
-- Appends to a document that is not empty are fixed by fix_append.
-- Returns the paths whose buffers need 'noeol' after the edit.
local function fix_empty_inserts(edit)
  local created, noeol = {}, {}
  local function fix(path, edits)
    if type(edits) ~= 'table' or #edits == 0 then
      return
    end
    if not doc_is_empty(path, created) then
      fix_append(path, edits)
      return
    end
    if #edits ~= 1 then
      return
    end
    local e = edits[1]
    local r = type(e) == 'table' and e.range
    if not (r and r.start and r['end']) or r.start.line ~= 0 or r.start.character ~= 0
      or r['end'].line ~= 0 or r['end'].character ~= 0 or type(e.newText) ~= 'string' or e.newText == '' then
      return
    end
    if e.newText:sub(-1) == '\n' then
      edits[1] = { range = { start = { line = 0, character = 0 }, ['end'] = { line = 1, character = 0 } }, newText = e.newText }
    else
      noeol[#noeol + 1] = path
    end
  end
  if type(edit) ~= 'table' then
    return noeol
  end
  for _, change in ipairs(util.list(edit.documentChanges)) do
    if type(change) == 'table' then
      if change.kind == 'create' and type(change.uri) == 'string' then
        created[util.abspath(vim.uri_to_fname(change.uri))] = true
      elseif change.textDocument and type(change.textDocument.uri) == 'string' then
        fix(util.abspath(vim.uri_to_fname(change.textDocument.uri)), change.edits)
      end
    end
  end
  if type(edit.changes) == 'table' then
    for uri, edits in pairs(edit.changes) do
      fix(util.abspath(vim.uri_to_fname(uri)), edits)
    end
  end
  return noeol
end

-- Applies a workspace/applyEdit with Neovim's own handler, noting which files
-- it touched and whether their buffers were loaded before, for the tracker of
-- the rewind or undo in flight.
local function on_apply_edit(err, params, ctx, hconfig)
  local list = trackers[ctx.client_id]
  local paths = edit_paths(params and params.edit)
  local before = {}
  for _, p in ipairs(paths) do
    local buf = util.find_buf(p)
    before[p] = { existed = buf ~= nil, loaded = buf ~= nil and vim.api.nvim_buf_is_loaded(buf) }
  end
  log.info('applyEdit', params and params.label, paths)
  log.debug('applyEdit edit', params and params.edit)
  local ok, noeol = pcall(fix_empty_inserts, params and params.edit)
  if not ok then
    log.warn('fix_empty_inserts', noeol)
    noeol = {}
  end
  local result = vim.lsp.handlers['workspace/applyEdit'](err, params, ctx, hconfig)
  log.info('applyEdit result', result)
  for _, p in ipairs(noeol) do
    local buf = util.find_buf(p)
    if buf and vim.api.nvim_buf_is_loaded(buf) then
      vim.bo[buf].eol = false
      vim.bo[buf].fixeol = false
    end
  end
  for _, t in ipairs(list or {}) do
    for _, p in ipairs(paths) do
      if t.touched[p] == nil then
        t.touched[p] = before[p]
        t.order[#t.order + 1] = p
      end
    end
    t.edits[#t.edits + 1] = { label = params and params.label, result = result }
  end
  return result
end

-- Messages from the server while one of our rewinds or undos is in flight
-- belong to that command, whose result message already says it: keep them
-- for the log instead of showing the same thing twice.
local show_levels = { [1] = vim.log.levels.ERROR, [2] = vim.log.levels.WARN, [3] = vim.log.levels.INFO, [4] = vim.log.levels.DEBUG }
local function on_show_message(_, params, ctx)
  params = params or {}
  local list = trackers[ctx.client_id]
  log.info('window/showMessage', params)
  if list and #list > 0 then
    for _, t in ipairs(list) do
      t.messages[#t.messages + 1] = params.message
    end
    return vim.NIL
  end
  local level = show_levels[params.type] or vim.log.levels.INFO
  if level > vim.log.levels.DEBUG then
    vim.schedule(function()
      vim.notify('rewind-lsp: ' .. tostring(params.message), level, { title = 'rewind' })
    end)
  end
  return vim.NIL
end

local function on_did_change(_, params, ctx)
  log.debug('rewind/didChange', params)
  local root = root_of[ctx.client_id]
  vim.schedule(function()
    require('rewind.events').changed(root, ctx.client_id, params or {})
  end)
end

local function on_agent_rewind(_, params, ctx)
  log.info('rewind/agentRewind', params)
  local root = root_of[ctx.client_id]
  vim.schedule(function()
    require('rewind.events').agent_rewind(root, ctx.client_id, params or {})
  end)
end

--- Starts recording what workspace/applyEdit requests on `client` touch.
--- Call :finish() on the returned tracker when the command answered.
function M.track(client)
  local t = { touched = {}, order = {}, edits = {}, messages = {} }
  local list = trackers[client.id] or {}
  trackers[client.id] = list
  list[#list + 1] = t
  function t.finish()
    for i, x in ipairs(trackers[client.id] or {}) do
      if x == t then
        table.remove(trackers[client.id], i)
        break
      end
    end
    return t
  end
  return t
end

-- ---------------------------------------------------------------------------
-- Starting and finding clients.

local function finish_waiters(id, ok, err)
  local list = waiters[id] or {}
  waiters[id] = nil
  for _, cb in ipairs(list) do
    cb(ok, err)
  end
end

local function make_config(root)
  local cfg = config.get()
  local init = vim.deepcopy(cfg.init_options or {})
  init.autoTurnQuietMs = cfg.autoTurnQuietMs
  -- The plugin handles rewind/didChange (on_did_change below); the server
  -- sends it only to clients that say so.
  init.rewindDidChange = true
  local store = cfg.store_dir
  if type(store) == 'function' then
    local ok, dir = pcall(store, root)
    if not ok then
      util.fail('option `store_dir` failed for ' .. root .. ': ' .. tostring(dir))
    end
    store = dir
  end
  if type(store) == 'string' and store ~= '' then
    init.storeDir = util.abspath(store)
  end
  return {
    name = M.NAME,
    cmd = cfg.cmd,
    cmd_env = cfg.cmd_env,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    capabilities = M.capabilities(),
    init_options = init,
    handlers = {
      ['workspace/applyEdit'] = on_apply_edit,
      ['rewind/didChange'] = on_did_change,
      ['rewind/agentRewind'] = on_agent_rewind,
      ['window/showMessage'] = on_show_message,
    },
    flags = { debounce_text_changes = 100 },
    on_init = function(client)
      ready[client.id] = true
      log.info('client ready', client.id, root)
      finish_waiters(client.id, true)
    end,
    on_exit = function(code, signal, id)
      vim.schedule(function()
        local was_stopping = stopping[id]
        if by_root[root] == id then
          by_root[root] = nil
        end
        root_of[id], ready[id], stopping[id], trackers[id] = nil, nil, nil, nil
        log.info('client exited', id, code, signal)
        finish_waiters(id, false, 'the server exited (code ' .. tostring(code) .. ')')
        if not was_stopping and (code ~= 0 or (signal or 0) ~= 0) then
          util.notify(
            string.format(
              'rewind-lsp for %s exited (code %s, signal %s); see :checkhealth rewind and :LspLog',
              root,
              tostring(code),
              tostring(signal)
            ),
            vim.log.levels.WARN
          )
        end
      end)
    end,
  }
end

local function reuse(client, conf)
  return client.name == M.NAME and client.config and client.config.root_dir == conf.root_dir
end

--- The client of `root`, or nil when none is running.
function M.get(root)
  local id = by_root[root]
  local client = id and vim.lsp.get_client_by_id(id)
  if client and not util.client_stopped(client) then
    return client
  end
  return nil
end

--- Every running client of this plugin as { root = client }.
function M.all()
  local out = {}
  for root in pairs(by_root) do
    local c = M.get(root)
    if c then
      out[root] = c
    end
  end
  return out
end

--- Attaches a buffer to a client unless it is already attached. Files inside
--- .git (commit messages, rebase todos) are not the workspace's and stay out.
function M.attach(buf, client)
  local p = vim.api.nvim_buf_is_loaded(buf) and util.buf_path(buf)
  if p and not p:find('/.git/', 1, true) then
    vim.lsp.buf_attach_client(buf, client.id)
  end
end

--- Attaches every loaded file buffer inside `root` to the client.
function M.attach_all(root, client)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    local p = util.buf_path(buf)
    if p and vim.api.nvim_buf_is_loaded(buf) and util.relpath(root, p) then
      M.attach(buf, client)
    end
  end
end

--- Starts (or reuses) the client for `root`; attaches `buf` when given.
--- Returns the client; raises a user error when the server cannot start.
function M.ensure(root, buf)
  local client = M.get(root)
  if client then
    if buf then
      M.attach(buf, client)
    end
    return client
  end
  local cfg = config.get()
  local exe = cfg.cmd[1]
  if vim.fn.executable(exe) ~= 1 then
    util.fail(
      string.format(
        'cannot start the server: %q is not an executable on PATH (set `cmd` in require("rewind").setup(), see :help rewind-install)',
        exe
      )
    )
  end
  local conf = make_config(root)
  local id
  local ok, err = pcall(function()
    if buf and vim.lsp.start then
      id = vim.lsp.start(conf, { bufnr = buf, reuse_client = reuse })
    elseif vim.lsp.start and util.has('0.11') then
      id = vim.lsp.start(conf, { attach = false, reuse_client = reuse })
    else
      id = vim.lsp.start_client(conf)
      if id and buf then
        vim.lsp.buf_attach_client(buf, id)
      end
    end
  end)
  if not ok or not id then
    util.fail('cannot start the server ' .. vim.inspect(cfg.cmd) .. ': ' .. tostring(err or 'no client'))
  end
  by_root[root] = id
  root_of[id] = root
  log.info('client started', id, root, cfg.cmd)
  client = vim.lsp.get_client_by_id(id)
  if client and client.initialized then
    ready[id] = true
  end
  if client then
    M.attach_all(root, client)
  end
  return client
end

--- Waits (in a coroutine) until the client answered `initialize`.
function M.wait_ready(client)
  if ready[client.id] or client.initialized then
    return
  end
  local timeout = config.get().startup_timeout_ms
  local ok, err = util.await(function(cb)
    waiters[client.id] = waiters[client.id] or {}
    table.insert(waiters[client.id], cb)
    local timer = util.uv.new_timer()
    table.insert(waiters[client.id], function()
      if not timer:is_closing() then
        timer:close()
      end
    end)
    timer:start(timeout, 0, function()
      if not timer:is_closing() then
        timer:close()
      end
      cb(false, 'no answer to initialize within ' .. timeout .. ' ms')
    end)
  end)
  if not ok then
    util.fail('the server did not start: ' .. tostring(err) .. ' (see :checkhealth rewind and :LspLog)')
  end
end

--- True once the client answered `initialize`.
function M.is_ready(client)
  return client ~= nil and (ready[client.id] or client.initialized) and true or false
end

--- Stops every client of this plugin.
function M.stop_all()
  for root, client in pairs(M.all()) do
    stopping[client.id] = true
    util.client_call(client, 'stop')
    by_root[root] = nil
  end
end

-- ---------------------------------------------------------------------------
-- Roots.

--- The root that holds `path` among running clients (the deepest one).
function M.running_root_of(path)
  local best
  for root in pairs(by_root) do
    if util.relpath(root, path) and (not best or #root > #best) then
      best = root
    end
  end
  return best
end

--- The workspace root for a file path: a running client's root containing it,
--- else the nearest folder with a root marker, else the current directory
--- when the file is inside it. Returns root, found_by_marker.
function M.root_for_path(path)
  local running = M.running_root_of(path)
  if running then
    return running, true
  end
  local dir = vim.fn.isdirectory(path) == 1 and path or vim.fn.fnamemodify(path, ':h')
  local marked = util.find_marker_root(dir, config.get().root_markers)
  if marked then
    return util.abspath(marked), true
  end
  local cwd = util.abspath(vim.fn.getcwd())
  if util.relpath(cwd, path) then
    return cwd, false
  end
  return util.abspath(dir), false
end

--- The root for the current context: b:rewind_root of plugin buffers, the
--- current file's root, else the root of the current directory.
function M.current_root(buf)
  buf = buf or vim.api.nvim_get_current_buf()
  local ok, r = pcall(vim.api.nvim_buf_get_var, buf, 'rewind_root')
  if ok and type(r) == 'string' and r ~= '' then
    return r, nil
  end
  local path = util.buf_path(buf)
  if path then
    return (M.root_for_path(path)), buf
  end
  return (M.root_for_path(util.abspath(vim.fn.getcwd()))), nil
end

--- In a coroutine: the ready client and root of the current context.
function M.current()
  local root, buf = M.current_root()
  local client = M.ensure(root, buf)
  M.wait_ready(client)
  return client, root
end

--- Autocommand callback: attach a newly read buffer, starting the client for
--- its root when `autostart` is on and the root has a marker.
function M.on_buf_read(buf)
  local path = util.buf_path(buf)
  if not path then
    return
  end
  local running = M.running_root_of(path)
  local client = running and M.get(running)
  if client then
    M.attach(buf, client)
    return
  end
  if not config.get().autostart then
    return
  end
  local root, marked = M.root_for_path(path)
  if not marked then
    return
  end
  local exe = config.get().cmd[1]
  if vim.fn.executable(exe) ~= 1 then
    -- Say it once per session, not on every file opened.
    if not warned_missing then
      warned_missing = true
      util.notify(
        string.format('%q is not on PATH; rewinds are off (see :checkhealth rewind)', exe),
        vim.log.levels.WARN
      )
    end
    return
  end
  util.guard(M.ensure, root, buf)
end

return M
