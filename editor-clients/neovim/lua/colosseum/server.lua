-- Starting the server and taking what it sends: the client configuration, one client per
-- project root on Neovim < 0.11 (vim.lsp.start_client from a FileType autocmd),
-- vim.lsp.config + vim.lsp.enable from 0.11 on, the colosseum/status notification, code lens
-- refreshes and settings pushed to running servers.

local commands = require("colosseum.commands")
local compat = require("colosseum.compat")
local root = require("colosseum.root")
local version = require("colosseum.version")

local server = {}

server.NAME = "colosseum"
local NAME = server.NAME

-- The plugin's state (config, status) lives on the `colosseum` module, which requires this
-- one, so it is looked up when needed.
local function plugin()
  return require("colosseum")
end

-- Lua tables that would be encoded as JSON arrays when empty are left out.
local function clean(value)
  if type(value) ~= "table" then
    return value
  end
  if compat.islist(value) then
    if #value == 0 then
      return nil
    end
    return value
  end
  local out = {}
  local any = false
  for k, v in pairs(value) do
    local c = clean(v)
    if c ~= nil then
      out[k] = c
      any = true
    end
  end
  if not any then
    return nil
  end
  return out
end

--- The settings as sent to the server (initializationOptions, { colosseum = ... }); nil when empty.
--- `trusted = true` in setup() adds the author's trust: only then does the server run the
--- project's code (Lean's lake serve elaborates lakefile.lean).
local function settings_payload()
  local payload = clean(plugin().config.settings)
  if plugin().config.trusted == true then
    payload = vim.tbl_extend("force", payload or {}, { trusted = true })
  end
  return payload
end

--- `colosseum/status`: kept in require("colosseum").status, then the User ColosseumStatus event.
local function status_handler(_, result)
  local colosseum = plugin()
  if type(result) == "table" then
    colosseum.status = vim.tbl_extend("force", colosseum.status, result)
  end
  pcall(vim.api.nvim_exec_autocmds, "User", { pattern = "ColosseumStatus", modeline = false })
  vim.cmd("redrawstatus")
  return vim.NIL
end

local codelens_group

-- What a LaTeX buffer needs to use the server without an lspconfig-style setup of its own:
-- completion with <C-x><C-o> (on 0.7 it says "omnifunc is not set") and hover on `K` (else
-- man.vim's K runs). An omnifunc or a buffer-local K the author set already is kept.
local function set_buffer_defaults(config, bufnr)
  if config.omnifunc and vim.api.nvim_buf_get_option(bufnr, "omnifunc") == "" then
    vim.api.nvim_buf_set_option(bufnr, "omnifunc", "v:lua.vim.lsp.omnifunc")
  end
  local key = config.hover_key
  if type(key) == "string" and key ~= "" then
    local taken = vim.api.nvim_buf_call(bufnr, function()
      local existing = vim.fn.maparg(key, "n", false, true)
      return type(existing) == "table" and existing.buffer == 1
    end)
    if not taken then
      vim.keymap.set("n", key, vim.lsp.buf.hover, { buffer = bufnr, desc = "Colosseum: hover" })
    end
  end
end

local function on_attach(client, bufnr)
  local config = plugin().config
  set_buffer_defaults(config, bufnr)
  if config.codelens and client.server_capabilities and client.server_capabilities.codeLensProvider then
    codelens_group = codelens_group or vim.api.nvim_create_augroup("colosseum_codelens", { clear = true })
    vim.api.nvim_clear_autocmds({ group = codelens_group, buffer = bufnr })
    vim.api.nvim_create_autocmd({ "BufEnter", "InsertLeave", "BufWritePost" }, {
      group = codelens_group,
      buffer = bufnr,
      callback = function()
        pcall(vim.lsp.codelens.refresh)
      end,
    })
    pcall(vim.lsp.codelens.refresh)
  end
  if config.on_attach then
    config.on_attach(client, bufnr)
  end
end

local function base_config()
  local config = plugin().config
  return {
    name = NAME,
    cmd = config.cmd,
    cmd_env = config.cmd_env,
    init_options = settings_payload(),
    settings = { colosseum = settings_payload() },
    capabilities = config.capabilities or vim.lsp.protocol.make_client_capabilities(),
    handlers = { ["colosseum/status"] = status_handler },
    commands = commands.client_side(),
    get_language_id = function()
      return "latex"
    end,
    on_init = function(client, initialize_result)
      version.check(initialize_result) -- the handshake: which side to upgrade, when they do not fit
      -- Neovim >= 0.8 sends the settings after initialization by itself; 0.7 does not.
      if not compat.has("nvim-0.8") and next(client.config.settings or {}) then
        local params = { settings = client.config.settings }
        compat.notify_server(client, "workspace/didChangeConfiguration", params)
      end
      return true
    end,
    on_attach = on_attach,
  }
end

local function buf_root(bufnr)
  return root.of_buffer(bufnr, plugin().config)
end

--- The loaded file buffers of the configured filetypes (those opened before setup()).
local function loaded_buffers()
  local filetypes = plugin().config.filetypes
  local found = {}
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr)
      and vim.bo[bufnr].buftype == ""
      and vim.tbl_contains(filetypes, vim.bo[bufnr].filetype)
    then
      table.insert(found, bufnr)
    end
  end
  return found
end

-- Neovim < 0.11: one client per root directory, started from a FileType autocmd.
local clients_by_root = {}

local function attach_legacy(bufnr)
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= "" then
    return
  end
  local dir = buf_root(bufnr)
  if not dir then
    return
  end
  local id = clients_by_root[dir]
  local client = id and vim.lsp.get_client_by_id(id)
  if not client or compat.is_stopped(client) then
    local config = base_config()
    config.root_dir = dir
    config.cmd_cwd = root.is_dir(dir) and dir or nil
    config.workspace_folders = { { uri = vim.uri_from_fname(dir), name = dir } }
    config.on_exit = function()
      if clients_by_root[dir] == id then
        clients_by_root[dir] = nil
      end
    end
    id = vim.lsp.start_client(config)
    if not id then
      local cmd = table.concat(plugin().config.cmd, " ")
      compat.notify("could not start the server: " .. cmd, vim.log.levels.ERROR)
      return
    end
    clients_by_root[dir] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
end

local function setup_legacy()
  local group = vim.api.nvim_create_augroup("colosseum_lsp", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = plugin().config.filetypes,
    callback = function(args)
      attach_legacy(args.buf)
    end,
  })
  for _, bufnr in ipairs(loaded_buffers()) do
    attach_legacy(bufnr)
  end
end

-- Neovim >= 0.11: vim.lsp.config + vim.lsp.enable.
local function setup_native()
  local config = base_config()
  config.name = nil
  config.filetypes = plugin().config.filetypes
  config.root_dir = function(bufnr, on_dir)
    local dir = buf_root(bufnr)
    if dir then
      on_dir(dir)
    end
  end
  vim.lsp.config(NAME, config)
  vim.lsp.enable(NAME)
  -- vim.lsp.enable() starts the server for buffers already loaded only once Neovim has
  -- entered (vim_did_enter); a setup() during startup (`nvim main.tex -c ...`) does it here.
  if vim.v.vim_did_enter == 0 then
    for _, bufnr in ipairs(loaded_buffers()) do
      local dir = buf_root(bufnr)
      if dir then
        local resolved = vim.deepcopy(vim.lsp.config[NAME])
        resolved.name = NAME
        resolved.root_dir = dir
        vim.lsp.start(resolved, { bufnr = bufnr })
      end
    end
  end
end

--- Starts (or attaches) the server for the configured filetypes, the way this Neovim can.
function server.start()
  if vim.lsp.config and vim.lsp.enable then
    setup_native()
  else
    setup_legacy()
  end
end

--- Sends the current settings to the running servers (workspace/didChangeConfiguration).
function server.push_settings()
  for _, client in pairs(compat.clients(NAME)) do
    client.config.settings = { colosseum = settings_payload() }
    compat.notify_server(client, "workspace/didChangeConfiguration", {
      settings = { colosseum = settings_payload() or vim.empty_dict() },
    })
  end
end

return server
