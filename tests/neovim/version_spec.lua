-- The version handshake in a headless Neovim (tests/test_neovim_version.py): the plugin's
-- comparison on its own, then against the real server: the server's serverInfo version is kept,
-- and a plugin whose major or minor version differs warns which side to upgrade.
--
-- Environment: COLOSSEUM_NVIM_OUT (the JSON report), COLOSSEUM_NVIM_FILE (a .tex file to open),
-- COLOSSEUM_NVIM_CMD (the server's command line, JSON), COLOSSEUM_NVIM_PLUGIN_VERSION (pretend
-- the plugin is this version; empty: its own).

local out = os.getenv("COLOSSEUM_NVIM_OUT")
local report = { ok = false }
local notes = {}
vim.notify = function(msg, level)
  table.insert(notes, { msg = msg, level = level })
end

local function finish()
  local handle = io.open(out, "w")
  handle:write(vim.fn.json_encode(report))
  handle:close()
  vim.cmd("qa!")
end

local ok, err = pcall(function()
  local version = require("colosseum.version")
  report.plugin_version = require("colosseum").version
  report.same_minor_fits = version.mismatch("0.1.0", { name = "colosseum", version = "0.1.9" }) == nil
  report.older_server = version.mismatch("0.2.0", { name = "colosseum", version = "0.1.0" })
  report.newer_server = version.mismatch("0.1.0", { name = "colosseum", version = "1.0.0" })
  report.no_version = version.mismatch("0.1.0", nil)
  local pretend = os.getenv("COLOSSEUM_NVIM_PLUGIN_VERSION")
  if pretend and pretend ~= "" then
    version.VERSION = pretend
  end
  require("colosseum").setup({ cmd = vim.fn.json_decode(os.getenv("COLOSSEUM_NVIM_CMD")) })
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("COLOSSEUM_NVIM_FILE")))
  report.initialized = vim.wait(60000, function()
    return require("colosseum").server_version ~= nil
  end, 20)
  report.server_version = require("colosseum").server_version
  report.message = version.last_message
  if version.last_message then
    vim.wait(10000, function()
      return #notes > 0
    end, 20)
  end
  report.notes = notes
  report.ok = true
end)
if not ok then
  report.error = tostring(err)
end
finish()
