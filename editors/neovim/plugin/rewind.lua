-- rewind.nvim: user commands only; everything else loads on first use.
if vim.g.loaded_rewind == 1 then
  return
end
if vim.fn.has('nvim-0.7') ~= 1 then
  vim.api.nvim_err_writeln('rewind.nvim needs Neovim 0.7 or later')
  return
end
vim.g.loaded_rewind = 1

local function command(name, opts)
  local entry = opts.entry or name
  opts.entry = nil
  vim.api.nvim_create_user_command(name, function(a)
    -- The command boundary: nothing below may throw at the user.
    local ok, err = pcall(function()
      require('rewind.commands')[entry](a)
    end)
    if not ok then
      vim.notify('rewind: ' .. tostring(err), vim.log.levels.ERROR)
    end
  end, opts)
end

local function complete(fn)
  return function(lead, line, pos)
    local ok, res = pcall(function()
      return require('rewind.commands')[fn](lead, line, pos)
    end)
    return ok and res or {}
  end
end

command('Rewind', {
  nargs = '*',
  bang = true,
  complete = complete('complete_rewind'),
  desc = 'Rewind the workspace to an agent turn (or to before a step, 3.2): [target] [mode] [path...]; ! skips the confirmation',
})
command('RewindPreview', {
  nargs = '?',
  complete = complete('complete_target'),
  desc = 'Preview a rewind as diffs in a new tab: [target]',
})
command('RewindUndo', { nargs = 0, desc = 'Undo the last rewind' })
command('RewindCheckpoint', { nargs = '?', desc = 'Record a checkpoint: [label]' })
command('RewindLog', { nargs = '?', desc = 'List turns, checkpoints, rewinds and reports: [number of latest turns]' })
command('RewindResume', { nargs = 0, desc = "Continue the agent's conversation forked by the last conversation rewind, in a :terminal" })
command('RewindRevert', {
  nargs = '?',
  bang = true,
  complete = complete('complete_target'),
  desc = 'Take back one turn (or one step, 3.2), keep the later ones: [target]; ! skips the confirmation',
})
command('RewindBlame', { nargs = 0, desc = 'Toggle agent blame: the turn that wrote each line, at its end' })
