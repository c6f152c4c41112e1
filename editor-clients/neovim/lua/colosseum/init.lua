-- Colosseum for LaTeX: Neovim client for the Colosseum language server.
--
--   require("colosseum").setup{
--     cmd = { "colosseum", "serve" },
--     settings = { model = "...", budget = { max_calls = 50, max_usd = 2.5 } },
--   }
--
-- Works on Neovim 0.7 (vim.lsp.start_client + vim.lsp.buf_attach_client from a FileType
-- autocmd) and on Neovim >= 0.11 (vim.lsp.config + vim.lsp.enable). See :help colosseum.
--
-- This module holds the options, the state and the public API; the work is done in
--   colosseum.server    starting the server, its notifications, settings updates
--   colosseum.commands  user commands, server commands and their results
--   colosseum.labels    the label under the cursor, the labels a buffer defines
--   colosseum.root      the project root of a file
--   colosseum.compat    Neovim 0.7 / 0.11 differences, messages

local commands = require("colosseum.commands")
local compat = require("colosseum.compat")
local labels = require("colosseum.labels")
local root = require("colosseum.root")
local server = require("colosseum.server")
local version = require("colosseum.version")

local M = {}

--- This plugin's version; `colosseum doctor` reads it, the server's is compared with it on start.
M.version = version.VERSION

--- The version the running server reported in `initialize` (serverInfo), or nil.
M.server_version = nil

--- Server-side command ids (workspace/executeCommand).
M.server_commands = {
  solve = "colosseum.solveObligation",
  review = "colosseum.globalReview",
  graph = "colosseum.showDependencyGraph",
  reindex = "colosseum.reindex",
  retract = "colosseum.retractEntry",
  review_claim = "colosseum.reviewClaim",
  explore = "colosseum.exploreStrategies",
  lean = "colosseum.checkLean",
  draft_inserted = "colosseum.draftInserted",
}

local defaults = {
  -- Program and arguments that start the server on stdio.
  cmd = { "colosseum", "serve" },
  -- Extra environment variables for the server process.
  cmd_env = nil,
  -- Sent as initializationOptions, and as {colosseum = settings} in
  -- workspace/didChangeConfiguration. Keys: model, budget = {max_calls, max_usd},
  -- labelDefinitionCommands, labelReferenceCommands, reviewOnSave (true: local review on save).
  settings = {},
  -- Trust this project to run its own code (Lean's lake serve elaborates lakefile.lean): false
  -- until the author says so here (or COLOSSEUM_TRUST=1, or trusted_folders in the user config).
  trusted = false,
  filetypes = { "tex", "latex", "plaintex" },
  -- Files or directories that mark the project root, in order of preference. When none is
  -- found, the directory of the file with \documentclass is the root.
  root_markers = { "colosseum.toml", ".latexmkrc" },
  -- Markers tried after the \documentclass search (a repository may hold more than a paper).
  fallback_root_markers = { ".git" },
  -- Refresh code lenses on BufEnter, InsertLeave and after a write.
  codelens = true,
  -- Set omnifunc=v:lua.vim.lsp.omnifunc in the buffers the server attaches to (unless set).
  omnifunc = true,
  -- Buffer-local normal-mode key for hover (vim.lsp.buf.hover) in those buffers; false: none.
  hover_key = "K",
  -- Called as on_attach(client, bufnr) when the server attaches to a buffer.
  on_attach = nil,
  -- Client capabilities (default: vim.lsp.protocol.make_client_capabilities()).
  capabilities = nil,
  -- Open the dependency graph's HTML file after :ColosseumGraph.
  open_graph = true,
}

M.config = vim.deepcopy(defaults)

--- Last `colosseum/status` notification: { obligations = n, state = "indexing"|"ready" }.
M.status = {}

--- Path of the last dependency graph the server wrote (:ColosseumGraph), or nil.
M.last_graph = nil

--- Project root for a file, see :help colosseum-root.
---@param path string absolute file name
---@param lines table|nil the buffer's lines (read from disk when nil)
---@return string
function M.find_root(path, lines)
  return root.find(path, lines, M.config)
end

--- The label in the brace argument of a label/reference macro that holds byte column `col`
--- (1-based) of `line`; for `\cref{a,b}` the item under the cursor.
function M.label_in_argument(line, col)
  return labels.in_argument(line, col, M.config.settings)
end

--- The label of the claim (theorem-like environment) or section around line `lnum`
--- (1-based), byte column `col` (1-based).
M.enclosing_label = labels.enclosing

--- The label under the cursor of the current window: the argument of a label/reference macro,
--- else the label of the enclosing claim.
function M.label_under_cursor()
  return labels.under_cursor(M.config.settings)
end

--- The Colosseum client attached to `bufnr` (default: current buffer), or nil.
function M.get_client(bufnr)
  if bufnr == nil or bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  return compat.clients(server.NAME, bufnr)[1]
end

M.execute = commands.execute
M.handle_result = commands.handle_result
M.solve = commands.solve
M.review_claim = commands.review_claim
M.explore = commands.explore
M.check_lean = commands.check_lean
M.review = commands.review
M.graph = commands.graph
M.reindex = commands.reindex
M.retract = commands.retract

--- For a statusline: "Colosseum: 3 open" / "Colosseum: indexing" / "".
function M.statusline()
  if M.status.state == "indexing" then
    return "Colosseum: indexing"
  end
  if type(M.status.obligations) == "number" then
    return string.format("Colosseum: %d open", M.status.obligations)
  end
  return ""
end

--- Pushes the current settings to the running servers (workspace/didChangeConfiguration).
function M.update_settings(settings)
  if settings then
    M.config.settings = settings
  end
  server.push_settings()
end

-- Options checked by setup(), by the type they must have.
local option_types = {
  table = {
    "cmd", "cmd_env", "settings", "filetypes", "root_markers", "fallback_root_markers", "capabilities",
  },
  ["function"] = { "on_attach" },
  boolean = { "trusted", "omnifunc" },
}

--- Explicit setup: nothing happens until this is called.
---@param opts table|nil see :help colosseum-setup
function M.setup(opts)
  opts = opts or {}
  for kind, keys in pairs(option_types) do
    for _, key in ipairs(keys) do
      if opts[key] ~= nil and type(opts[key]) ~= kind then
        error(string.format("colosseum.setup: `%s` must be a %s, got %s", key, kind, type(opts[key])), 2)
      end
    end
  end
  if opts.hover_key ~= nil and opts.hover_key ~= false and type(opts.hover_key) ~= "string" then
    error("colosseum.setup: `hover_key` must be a string or false, got " .. type(opts.hover_key), 2)
  end
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts)
  -- Lists are replaced, not merged index by index.
  for _, key in ipairs({ "cmd", "filetypes", "root_markers", "fallback_root_markers" }) do
    if opts[key] then
      M.config[key] = opts[key]
    end
  end
  commands.create_user_commands()
  server.start()
  return M
end

return M
