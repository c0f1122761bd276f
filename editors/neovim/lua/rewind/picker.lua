-- rewind.picker: vim.ui.select pickers for targets, modes and confirmation,
-- so Telescope / fzf-lua / snacks users get their own UI. A turn picker lists
-- the latest page of turns (`turns_per_page`), each followed by its steps
-- (indented, marked ↳), and, when older turns were left out, an "Older
-- turns…" choice that opens the picker on the page before.
local config = require('rewind.config')
local events = require('rewind.events')
local paging = require('rewind.paging')
local plan_ui = require('rewind.plan')
local protocol = require('rewind.protocol')
local steps = require('rewind.steps')
local util = require('rewind.util')

local M = {}

--- In a coroutine: a page of the `rewind.list` of the client's root. opts:
--- {limit?, before?}: the latest `limit` turns (default `turns_per_page`) numbered
--- below `before`. A page from the latest turn is cached (for completion).
function M.list(client, root, opts)
  opts = opts or {}
  local list = util.exec(client, protocol.commands.list, {
    limit = opts.limit or config.get().turns_per_page,
    before = opts.before,
  })
  list = type(list) == 'table' and list or {}
  if not opts.before then
    events.store(root, list)
  end
  return list
end

--- A turn in a picker, in the server's words: "Turn 2: fix auth  5m ago  2 files changed (+3 -1)".
local function turn_item(t)
  return {
    kind = 'turn',
    target = tostring(t.turn),
    turn = t,
    text = string.format(
      '%s  %s  %s',
      util.truncate(t.title, 70),
      tostring(t.age),
      util.str(t.ended) and tostring(t.what) or '[open]'
    ),
  }
end

--- A step in a picker, after its turn, in the server's words:
--- "  ↳ turn 2, step 1: Edit a.txt  5m ago  1 file changed (+1 -0)".
local function step_item(t, s)
  return {
    kind = 'step',
    target = tostring(s.target),
    turn = t,
    step = s,
    text = '  ↳ ' .. steps.line(s, 66),
  }
end

--- A checkpoint in a picker, in the server's words: "Checkpoint @base: try JWT  5m ago".
local function checkpoint_item(c)
  local label = util.str(c.label)
  return {
    kind = 'checkpoint',
    target = label and ('@' .. label) or tostring(c.entry),
    checkpoint = c,
    text = string.format('%s  %s', util.truncate(c.title, 70), tostring(c.age)),
  }
end

--- The choice that opens the picker on the older turns.
local function older_item(before)
  return { kind = 'older', before = before, text = string.format('Older turns…  (before turn %d)', before) }
end

--- The picker items of a list result: turns newest first, each followed by
--- its steps, then, when older turns were left out, the choice that lists
--- them, then checkpoints (none with only_turns).
function M.items(list, only_turns)
  local items = {}
  local turns = util.list(list.turns)
  for i = #turns, 1, -1 do
    if type(turns[i]) == 'table' then
      items[#items + 1] = turn_item(turns[i])
      for _, s in ipairs(steps.of(turns[i])) do
        items[#items + 1] = step_item(turns[i], s)
      end
    end
  end
  local before = paging.older_before(list)
  if before then
    items[#items + 1] = older_item(before)
  end
  if only_turns then
    return items
  end
  local cps = util.list(list.checkpoints)
  for i = #cps, 1, -1 do
    if type(cps[i]) == 'table' then
      items[#items + 1] = checkpoint_item(cps[i])
    end
  end
  return items
end

--- In a coroutine: asks for a target among the latest page of turns (and
--- their steps) and the checkpoints recorded among them; "Older turns…" asks
--- again among the page before, as often as there are older turns. opts: a
--- prompt, or {prompt?, kind?, only_turns?}. Returns the target string
--- ("3", "3.2" for a step, "@label"), or nil.
function M.pick_target(client, root, opts)
  if type(opts) ~= 'table' then
    opts = { prompt = opts }
  end
  local prompt = opts.prompt or 'Rewind to (the state before the turn started)'
  local list = M.list(client, root)
  local items = M.items(list, opts.only_turns)
  if #items == 0 then
    util.fail('no turns recorded yet in ' .. root .. ' (agent turns appear here once a hook or `rewind-lsp turn start/end` records them)', vim.log.levels.WARN)
  end
  local page_prompt = prompt
  while true do
    local item = util.select(items, {
      prompt = page_prompt,
      kind = opts.kind or 'rewind.target',
      format_item = function(it)
        return it.text
      end,
    })
    if not item or item.kind ~= 'older' then
      return item and item.target or nil
    end
    list = M.list(client, root, { before = item.before })
    items = M.items(list, opts.only_turns)
    page_prompt = string.format('%s — turns before turn %d', prompt, item.before)
  end
end

local mode_help = {
  code = 'code: restore files, keep the conversation',
  both = 'both: restore files and move the conversation back',
  conversation = 'conversation: move the conversation back, keep files',
  summarize = 'summarize: keep everything, append a summary of the skipped turns',
  plan = 'plan: only show what would change',
}

--- In a coroutine: asks for a mode (the default first). Returns it, or nil.
function M.pick_mode()
  local default = config.get().default_mode
  local modes = { default }
  for _, m in ipairs(protocol.modes) do
    if m ~= default then
      modes[#modes + 1] = m
    end
  end
  local mode = util.select(modes, {
    prompt = 'Rewind mode',
    kind = 'rewind.mode',
    format_item = function(m)
      return mode_help[m] or m
    end,
  })
  return mode
end

--- In a coroutine: asks whether to apply the plan. Returns "apply", "force"
--- (overwrite conflicting files) or nil.
function M.confirm(plan)
  local choices = { { 'apply', 'Apply' } }
  if #plan_ui.conflicts(plan) > 0 then
    choices[1][2] = 'Apply (refused while files are in conflict)'
    choices[#choices + 1] = { 'force', 'Apply and overwrite the conflicting files (force)' }
  end
  choices[#choices + 1] = { 'cancel', 'Cancel' }
  local choice = util.select(choices, {
    prompt = 'Rewind to ' .. plan_ui.target_name(plan.target) .. '?',
    kind = 'rewind.confirm',
    format_item = function(c)
      return c[2]
    end,
  })
  if not choice or choice[1] == 'cancel' then
    return nil
  end
  return choice[1]
end

-- ---------------------------------------------------------------------------
-- Completion.

--- Target candidates from a list result: turn numbers, each followed by its
--- steps' targets ("3", "3.1", "3.2"), then turn:N:end, ~N, @label.
function M.target_candidates(list)
  local out = {}
  local turns = util.list(list and list.turns)
  for i = #turns, 1, -1 do
    if type(turns[i]) == 'table' and turns[i].turn then
      out[#out + 1] = tostring(turns[i].turn)
      for _, s in ipairs(steps.of(turns[i])) do
        out[#out + 1] = tostring(s.target)
      end
    end
  end
  for i = #turns, 1, -1 do
    if type(turns[i]) == 'table' and turns[i].turn then
      out[#out + 1] = 'turn:' .. turns[i].turn .. ':end'
    end
  end
  for i = 1, math.min(#turns, 9) do
    out[#out + 1] = '~' .. i
  end
  for _, c in ipairs(util.list(list and list.checkpoints)) do
    if type(c) == 'table' and util.str(c.label) then
      out[#out + 1] = '@' .. c.label
    end
  end
  return out
end

return M
