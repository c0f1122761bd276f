-- Window-local settings for the :RewindLog buffer.
vim.opt_local.wrap = false
vim.opt_local.number = false
vim.opt_local.relativenumber = false
vim.opt_local.cursorline = true
vim.opt_local.signcolumn = 'no'
vim.b.undo_ftplugin = 'setlocal wrap< number< relativenumber< cursorline< signcolumn<'
