-- The version handshake: the server names its version in `initialize` (serverInfo); the plugin
-- compares it with its own and, when the major or minor version differs, says plainly which
-- side to upgrade. Patch releases always fit.

local compat = require("colosseum.compat")

local version = {}

--- This plugin's version (the server package's version it was released with).
version.VERSION = "0.1.0"
version.SERVER_PACKAGE = "colosseum-latex"

local UPGRADE_SERVER = "upgrade the server: pipx upgrade " .. version.SERVER_PACKAGE
  .. " (or uv tool upgrade " .. version.SERVER_PACKAGE .. ")"
local UPGRADE_PLUGIN = "upgrade the plugin: your plugin manager's update (e.g. :Lazy update colosseum.nvim)"

--- major, minor of "1.2.3" (missing or non-numeric parts read as 0).
local function major_minor(text)
  local major, minor = tostring(text):match("^%s*(%d+)%.?(%d*)")
  return tonumber(major) or 0, tonumber(minor) or 0
end

--- The sentence to show when the server and the plugin do not fit, or nil when they do.
---@param own string the plugin's version
---@param server_info table|nil serverInfo from the initialize result ({ name, version })
function version.mismatch(own, server_info)
  local server_version = type(server_info) == "table" and server_info.version or nil
  if type(server_version) ~= "string" or server_version == "" then
    return "the language server did not report its version (it is older than this plugin "
      .. own .. "): " .. UPGRADE_SERVER .. "."
  end
  local server_major, server_minor = major_minor(server_version)
  local own_major, own_minor = major_minor(own)
  if server_major == own_major and server_minor == own_minor then
    return nil
  end
  local server_is_older = server_major < own_major or (server_major == own_major and server_minor < own_minor)
  return "the language server is " .. server_version .. " and this plugin is " .. own .. ": "
    .. (server_is_older and UPGRADE_SERVER or UPGRADE_PLUGIN) .. "."
end

--- Called from on_init with the initialize result: keeps the server's version in
--- require("colosseum").server_version and warns when it does not fit the plugin.
function version.check(initialize_result)
  local info = type(initialize_result) == "table" and initialize_result.serverInfo or nil
  local plugin = require("colosseum")
  plugin.server_version = type(info) == "table" and info.version or nil
  local message = version.mismatch(version.VERSION, info)
  version.last_message = message -- (what the last handshake said; nil when they fit)
  if message then
    vim.schedule(function()
      compat.notify(message, vim.log.levels.WARN)
    end)
  end
  return message
end

return version
