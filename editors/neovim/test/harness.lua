-- Test harness for headless Neovim runs (0.7.2 and later; no busted, no nvim -l).
--
-- Results go to stdout with io.stdout:write (headless print goes to stderr):
-- one "ok   - name" or "FAIL - name" line per check, then "N passed, N failed".
local H = {}

H.pass, H.fail, H.skip = 0, 0, 0
H.notes = {} -- every vim.notify call: {msg, level}

local function out(s)
  io.stdout:write(s .. '\n')
  io.stdout:flush()
end
H.out = out

--- Records a check; `extra` is printed on failure.
function H.check(name, cond, extra)
  if cond then
    H.pass = H.pass + 1
    out('ok   - ' .. name)
  else
    H.fail = H.fail + 1
    local detail = ''
    if extra ~= nil then
      detail = '  ' .. (type(extra) == 'string' and extra or vim.inspect(extra)):gsub('\n', '\n      ')
    end
    out('FAIL - ' .. name .. detail)
  end
  return cond
end

--- A check that fails today because of a known problem outside the plugin:
--- a failure prints "skip - name (known: why)" and counts as skipped, so the
--- problem stays visible in every run; a pass is an ordinary "ok".
function H.known(name, cond, why, extra)
  if cond then
    return H.check(name, true)
  end
  H.skip = H.skip + 1
  out('skip - ' .. name .. ' (known: ' .. why .. ')' .. (extra and ('  ' .. vim.inspect(extra)) or ''))
  return false
end

--- Equality check with a readable diff of both sides on failure.
function H.eq(name, got, want)
  local same = vim.deep_equal(got, want)
  return H.check(name, same, same and nil or ('want ' .. vim.inspect(want) .. '\n got ' .. vim.inspect(got)))
end

--- Waits for cond() (processing events meanwhile); true when it held in time.
function H.wait(ms, cond)
  return vim.wait(ms, function()
    local ok, v = pcall(cond)
    return ok and v and true or false
  end, 10)
end

--- Captures vim.notify into H.notes (and still logs to stderr).
function H.capture_notify()
  vim.notify = function(msg, level)
    H.notes[#H.notes + 1] = { msg = tostring(msg), level = level or vim.log.levels.INFO }
    io.stderr:write('[notify ' .. tostring(level) .. '] ' .. tostring(msg) .. '\n')
  end
end

--- Notes since index `from` whose message contains `text` (plain).
function H.notes_matching(text, from)
  local found = {}
  for i = from or 1, #H.notes do
    if H.notes[i].msg:find(text, 1, true) then
      found[#found + 1] = H.notes[i]
    end
  end
  return found
end

--- All notes since `from`, joined for error output.
function H.notes_since(from)
  local t = {}
  for i = from or 1, #H.notes do
    t[#t + 1] = H.notes[i].msg
  end
  return table.concat(t, '\n')
end

-- vim.ui.select / vim.ui.input answered from queues. Each select answer is a
-- function(items, opts) -> index (or nil to cancel); calls are recorded.
H.select_answers, H.input_answers, H.select_calls = {}, {}, {}

function H.fake_ui()
  vim.ui.select = function(items, opts, on_choice)
    local rendered = {}
    for i, it in ipairs(items) do
      rendered[i] = opts and opts.format_item and opts.format_item(it) or tostring(it)
    end
    H.select_calls[#H.select_calls + 1] = { prompt = opts and opts.prompt, kind = opts and opts.kind, items = rendered, raw = items }
    local answer = table.remove(H.select_answers, 1)
    local idx = answer and answer(items, opts, rendered) or nil
    vim.schedule(function()
      if idx then
        on_choice(items[idx], idx)
      else
        on_choice(nil, nil)
      end
    end)
  end
  vim.ui.input = function(opts, on_confirm)
    local answer = table.remove(H.input_answers, 1)
    vim.schedule(function()
      on_confirm(answer)
    end)
  end
end

--- A select answer choosing the first item whose rendered text contains `text`.
function H.pick(text)
  return function(_, _, rendered)
    for i, r in ipairs(rendered) do
      if r:find(text, 1, true) then
        return i
      end
    end
    return nil
  end
end

--- A select answer choosing the confirmation item with the given key.
function H.choose(key)
  return function(items)
    for i, it in ipairs(items) do
      if type(it) == 'table' and it[1] == key or it == key then
        return i
      end
    end
    return nil
  end
end

function H.read(path)
  local f = io.open(path, 'rb')
  if not f then
    return nil
  end
  local s = f:read('*a')
  f:close()
  return s
end

--- Helpers on a suite's workspace ws with the server bin and store: path(rel)
--- is the absolute path, write(rel, text) writes a file, cli(...) runs the
--- command line there (it must succeed) and returns its output.
function H.workspace(ws, bin, store)
  local w = {}
  function w.path(rel)
    return ws .. '/' .. rel
  end
  function w.write(rel, text)
    local f = assert(io.open(w.path(rel), 'wb'))
    f:write(text)
    f:close()
  end
  function w.cli(...)
    local out = vim.fn.system(vim.list_extend({ bin, '--root', ws, '--store', store }, { ... }))
    assert(vim.v.shell_error == 0, 'rewind-lsp ' .. table.concat({ ... }, ' ') .. ': ' .. out)
    return out
  end
  return w
end

--- Runs fn, reporting an error as a failed check instead of aborting.
function H.section(name, fn)
  out('# ' .. name)
  local ok, err = xpcall(fn, debug.traceback)
  if not ok then
    H.check(name .. ' (ran without error)', false, err)
  end
end

--- Prints the summary line and exits Neovim with the right status.
function H.finish()
  out(string.format('%d passed, %d failed', H.pass, H.fail) .. (H.skip > 0 and (', ' .. H.skip .. ' skipped') or ''))
  if H.fail > 0 then
    vim.cmd('cquit 1')
  else
    vim.cmd('qall!')
  end
end

return H
