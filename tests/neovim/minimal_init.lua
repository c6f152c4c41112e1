-- Minimal init for the headless Neovim tests: no user configuration, only our plugin.
--
--   nvim --headless -u tests/neovim/minimal_init.lua -c "luafile tests/neovim/e2e_spec.lua"
--
-- Works on Neovim 0.7 and later.

local this = debug.getinfo(1, "S").source:sub(2)
local repo = vim.fn.fnamemodify(this, ":p:h:h:h")

vim.g.colosseum_test_repo = repo
vim.opt.runtimepath:prepend(repo .. "/editor-clients/neovim")
vim.opt.swapfile = false
vim.opt.shadafile = "NONE"
vim.opt.more = false
vim.g.tex_flavor = "latex"
vim.cmd("filetype on")
