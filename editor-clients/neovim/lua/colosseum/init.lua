-- Colosseum for LaTeX: Neovim client for the Colosseum language server.
--
--   require("colosseum").setup{
--     cmd = { "colosseum", "serve" },
--     settings = { model = "...", budget = { max_calls = 50, max_usd = 2.5 } },
--   }
--
-- Works on Neovim 0.7 (vim.lsp.start_client + vim.lsp.buf_attach_client from a FileType
-- autocmd) and on Neovim >= 0.11 (vim.lsp.config + vim.lsp.enable). See :help colosseum.

local M = {}

local NAME = "colosseum"

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
  filetypes = { "tex", "latex", "plaintex" },
  -- Files or directories that mark the project root, in order of preference. When none is
  -- found, the directory of the file with \documentclass is the root.
  root_markers = { "colosseum.toml", ".latexmkrc" },
  -- Markers tried after the \documentclass search (a repository may hold more than a paper).
  fallback_root_markers = { ".git" },
  -- Refresh code lenses on BufEnter, InsertLeave and after a write.
  codelens = true,
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

local uv = vim.uv or vim.loop
local islist = vim.islist or vim.tbl_islist

local function has(feature)
  return vim.fn.has(feature) == 1
end

local function notify(msg, level)
  vim.notify("Colosseum: " .. msg, level or vim.log.levels.INFO)
end

-- Client methods are called `client:request(...)` from 0.11 on and `client.request(...)` before.
local function client_request(client, method, params, handler, bufnr)
  if has("nvim-0.11") then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function client_notify(client, method, params)
  if has("nvim-0.11") then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

local function client_is_stopped(client)
  if has("nvim-0.11") then
    return client:is_stopped()
  end
  return client.is_stopped()
end

local function is_dir(path)
  local stat = uv.fs_stat(path)
  return stat ~= nil and stat.type == "directory"
end

local function exists(path)
  return uv.fs_stat(path) ~= nil
end

local function parent(dir)
  local p = vim.fn.fnamemodify(dir, ":h")
  if p == dir then
    return nil
  end
  return p
end

local function has_documentclass(lines)
  for _, line in ipairs(lines) do
    local code = line:gsub("^%s+", "")
    if code:sub(1, 1) ~= "%" and code:find("\\documentclass", 1, true) then
      return true
    end
  end
  return false
end

local function file_has_documentclass(path)
  local ok, lines = pcall(vim.fn.readfile, path, "", 200)
  return ok and has_documentclass(lines)
end

--- `% !TEX root = main.tex` (TeXShop/VS Code LaTeX Workshop magic comment) in the first lines.
local function magic_root(lines, dir)
  for i = 1, math.min(#lines, 20) do
    local target = lines[i]:match("^%%%s*!%s*[Tt][Ee][Xx]%s+root%s*=%s*(.-)%s*$")
    if target and target ~= "" then
      local path = target
      if path:sub(1, 1) ~= "/" then
        path = dir .. "/" .. path
      end
      path = vim.fn.fnamemodify(path, ":p")
      if exists(path) then
        return vim.fn.fnamemodify(path, ":h")
      end
    end
  end
  return nil
end

--- Project root for a file: the nearest directory upward holding one of root_markers (in
--- their order of preference), else the `% !TEX root` target's directory, else the
--- directory of the file with \documentclass (this one, or one in a parent directory), else
--- the nearest directory holding one of fallback_root_markers, else the file's directory.
---@param path string absolute file name
---@param lines table|nil the buffer's lines (read from disk when nil)
---@return string
function M.find_root(path, lines)
  local cfg = M.config
  local dir = vim.fn.fnamemodify(path, ":p:h")
  for _, marker in ipairs(cfg.root_markers or {}) do
    local d = dir
    while d do
      if exists(d .. "/" .. marker) then
        return d
      end
      d = parent(d)
    end
  end
  if lines == nil then
    local ok, read = pcall(vim.fn.readfile, path, "", 200)
    lines = ok and read or {}
  end
  local from_magic = magic_root(lines, dir)
  if from_magic then
    return from_magic
  end
  if has_documentclass(vim.list_slice(lines, 1, 200)) then
    return dir
  end
  local d = parent(dir)
  local depth = 0
  while d and depth < 4 do
    for _, tex in ipairs(vim.fn.glob(d .. "/*.tex", true, true)) do
      if file_has_documentclass(tex) then
        return d
      end
    end
    if exists(d .. "/.git") then
      break
    end
    d = parent(d)
    depth = depth + 1
  end
  for _, marker in ipairs(cfg.fallback_root_markers or {}) do
    d = dir
    while d do
      if exists(d .. "/" .. marker) then
        return d
      end
      d = parent(d)
    end
  end
  return dir
end

local function buf_root(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" or name:match("^%a[%w+.-]*://") then
    return nil
  end
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, 200, false)
  return M.find_root(vim.fn.fnamemodify(name, ":p"), lines)
end

-- Lua tables that would be encoded as JSON arrays when empty are left out.
local function clean(value)
  if type(value) ~= "table" then
    return value
  end
  if islist(value) then
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

local function init_options()
  return clean(M.config.settings)
end

-- ---------------------------------------------------------------------------------------------
-- Label under the cursor

local LABEL_COMMANDS = {
  "label", "ref", "cref", "Cref", "crefrange", "Crefrange", "cpageref", "Cpageref",
  "labelcref", "eqref", "autoref", "Autoref", "pageref", "nameref", "Nameref", "vref", "Vref",
  "vpageref", "zref", "zcref", "uses", "proves",
}

local NON_CLAIM = {}
for _, env in ipairs({
  "equation", "align", "alignat", "gather", "multline", "flalign", "eqnarray", "split",
  "aligned", "gathered", "cases", "array", "matrix", "pmatrix", "bmatrix", "tabular",
  "itemize", "enumerate", "description", "figure", "table", "center", "tikzpicture", "tikzcd",
  "document", "abstract", "minipage", "quote", "quotation", "verbatim",
}) do
  NON_CLAIM[env] = true
  NON_CLAIM[env .. "*"] = true
end

local function strip_comment(line)
  local i = 1
  while true do
    local s = line:find("%", i, true)
    if not s then
      return line
    end
    if s == 1 or line:sub(s - 1, s - 1) ~= "\\" then
      return line:sub(1, s - 1)
    end
    i = s + 1
  end
end

local function label_commands()
  local set = {}
  for _, c in ipairs(LABEL_COMMANDS) do
    set[c] = true
  end
  local s = M.config.settings or {}
  for _, key in ipairs({ "labelDefinitionCommands", "labelReferenceCommands" }) do
    for _, c in ipairs(s[key] or {}) do
      set[(c:gsub("^\\", ""))] = true
    end
  end
  return set
end

--- The label in the brace argument of a label/reference macro that holds byte column `col`
--- (1-based) of `line`; for `\cref{a,b}` the item under the cursor.
function M.label_in_argument(line, col)
  local commands = label_commands()
  local init = 1
  while true do
    local s, e, name, arg = line:find("\\([%a@]+)%*?%s*[^{}]-{([^{}]*)}", init)
    if not s then
      return nil
    end
    -- Only optional arguments may stand between the macro and its brace argument.
    local between = line:sub(s + 1 + #name, e - #arg - 2)
    if not between:match("^%*?%s*$") and not between:match("^%*?%s*%b[]%s*$") then
      init = s + 1
    else
      local arg_start = e - #arg -- byte index of the argument's first character
      local arg_end = e - 1
      if col >= arg_start and col <= arg_end + 1 then
        if not commands[name] and not name:lower():match("ref$") then
          return nil
        end
        local offset = arg_start
        for item in (arg .. ","):gmatch("([^,]*),") do
          if col >= offset and col <= offset + #item then
            local label = vim.trim(item)
            return label ~= "" and label or nil
          end
          offset = offset + #item + 1
        end
        return nil
      end
      init = e + 1
    end
  end
end

local function first_label_from(lines, lnum, col, window)
  for l = lnum, math.min(#lines, lnum + window - 1) do
    local text = strip_comment(l == lnum and lines[l]:sub(col) or lines[l])
    local ls, _, label = text:find("\\label%s*%b[]%s*{([^{}]+)}")
    if not ls then
      ls, _, label = text:find("\\label%s*{([^{}]+)}")
    end
    local bs = text:find("\\begin%s*{") or text:find("\\end%s*{")
    if ls and (not bs or ls < bs) then
      return vim.trim(label)
    end
    if bs then
      return nil
    end
  end
  return nil
end

--- The label of the claim (theorem-like environment) or section around line `lnum`
--- (1-based), byte column `col` (1-based).
function M.enclosing_label(lines, lnum, col)
  local in_proof = false
  for l = lnum, math.max(1, lnum - 500), -1 do
    local limit = l == lnum and col or math.huge
    local text = strip_comment(lines[l])
    local events = {}
    local init = 1
    while true do
      local s, e, kind, env = text:find("\\(%a+)%s*{([^{}]+)}", init)
      if not s then
        break
      end
      if (kind == "begin" or kind == "end") and s <= limit then
        table.insert(events, { kind = kind, env = vim.trim(env), e = e })
      end
      init = e + 1
    end
    for i = #events, 1, -1 do
      local ev = events[i]
      if not NON_CLAIM[ev.env] then
        local is_proof = ev.env:sub(1, 5) == "proof"
        if ev.kind == "end" then
          if is_proof or not in_proof then
            return nil
          end
        elseif is_proof then
          local rest = text:sub(ev.e + 1)
          local opt = rest:match("^%s*(%b[])")
          local ref = opt and opt:match("\\%a*ref%*?%s*{([^{},]+)")
          if ref then
            return vim.trim(ref)
          end
          in_proof = true
        else
          return first_label_from(lines, l, ev.e + 1, 10)
        end
      end
    end
    local ss, se = text:find("\\%a*section%*?%s*%b[]%s*{")
    if not ss then
      ss, se = text:find("\\%a*section%*?%s*{")
    end
    if not ss then
      ss, se = text:find("\\chapter%*?%s*{")
    end
    if ss and ss <= limit then
      if in_proof then
        return nil
      end
      return first_label_from(lines, l, se + 1, 3)
    end
  end
  return nil
end

--- The label under the cursor of the current window: the argument of a label/reference macro,
--- else the label of the enclosing claim.
function M.label_under_cursor()
  local cursor = vim.api.nvim_win_get_cursor(0)
  local lnum, col = cursor[1], cursor[2] + 1
  local bufnr = vim.api.nvim_get_current_buf()
  local line = vim.api.nvim_buf_get_lines(bufnr, lnum - 1, lnum, false)[1] or ""
  local label = M.label_in_argument(line, col)
  if label then
    return label
  end
  local first = math.max(0, lnum - 501)
  local lines = vim.api.nvim_buf_get_lines(bufnr, first, lnum + 10, false)
  return M.enclosing_label(lines, lnum - first, col)
end

-- ---------------------------------------------------------------------------------------------
-- Clients and commands

--- The Colosseum client attached to `bufnr` (default: current buffer), or nil.
function M.get_client(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = bufnr, name = NAME })[1]
  end
  for _, client in pairs(vim.lsp.buf_get_clients(bufnr)) do
    if client.name == NAME then
      return client
    end
  end
  return nil
end

local function open_path(path)
  if vim.ui and vim.ui.open then
    local ok, err = pcall(vim.ui.open, path)
    if ok then
      return true
    end
    notify("could not open " .. path .. ": " .. tostring(err), vim.log.levels.WARN)
    return false
  end
  local opener
  if has("mac") then
    opener = { "open", path }
  elseif has("win32") then
    opener = { "cmd.exe", "/c", "start", "", path }
  elseif vim.fn.executable("xdg-open") == 1 then
    opener = { "xdg-open", path }
  elseif vim.fn.executable("wslview") == 1 then
    opener = { "wslview", path }
  end
  if not opener then
    return false
  end
  local ok = pcall(vim.fn.jobstart, opener, { detach = true })
  return ok
end

local function graph_path(result)
  if type(result) == "string" then
    if result:match("^file:") then
      return vim.uri_to_fname(result)
    end
    return result
  end
  if type(result) == "table" then
    if type(result.path) == "string" then
      return result.path
    end
    if type(result.uri) == "string" then
      return vim.uri_to_fname(result.uri)
    end
  end
  return nil
end

local function result_message(result)
  if type(result) == "string" and result ~= "" then
    return result
  end
  if type(result) == "table" then
    for _, key in ipairs({ "message", "summary", "status" }) do
      if type(result[key]) == "string" and result[key] ~= "" then
        return result[key]
      end
    end
  end
  return nil
end

--- What to do with a command's result: open the graph, or show the server's message.
function M.handle_result(command, result)
  if command == M.server_commands.graph then
    local path = graph_path(result)
    if not path then
      notify("the server returned no graph path: " .. vim.inspect(result), vim.log.levels.WARN)
      return
    end
    M.last_graph = path
    if M.config.open_graph then
      open_path(path)
    end
    vim.api.nvim_echo({ { "Colosseum: dependency graph: " .. path } }, true, {})
    return
  end
  local message = result_message(result)
  if message then
    notify(message)
  elseif command == M.server_commands.reindex then
    local parts = {}
    for _, key in ipairs({ "files", "claims", "sections" }) do
      if type(result) == "table" and type(result[key]) == "number" then
        table.insert(parts, result[key] .. " " .. key)
      end
    end
    notify("re-indexed" .. (#parts > 0 and (" (" .. table.concat(parts, ", ") .. ")") or ""))
  end
end

--- Sends workspace/executeCommand to the Colosseum client of `bufnr`; `on_done(err, result)`
--- is called after the result has been handled.
function M.execute(command, arguments, bufnr, on_done)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = M.get_client(bufnr)
  if not client then
    notify("no Colosseum server is attached to this buffer", vim.log.levels.WARN)
    return false
  end
  local params = { command = command, arguments = arguments }
  client_request(client, "workspace/executeCommand", params, function(err, result)
    if err then
      notify(command .. " failed: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    else
      M.handle_result(command, result)
    end
    if on_done then
      on_done(err, result)
    end
  end, bufnr)
  return true
end

local function buf_uri(bufnr)
  return vim.uri_from_bufnr(bufnr)
end

function M.solve(label)
  local bufnr = vim.api.nvim_get_current_buf()
  if label == nil or label == "" then
    label = M.label_under_cursor()
  end
  if not label then
    notify("no label under the cursor; give one: :ColosseumSolve <label>", vim.log.levels.WARN)
    return false
  end
  notify("solving " .. label .. " ...")
  return M.execute(M.server_commands.solve, { buf_uri(bufnr), label }, bufnr)
end

--- Runs a server command about a label: the one given, else the one under the cursor.
local function label_command(command, label, busy, extra)
  local bufnr = vim.api.nvim_get_current_buf()
  if label == nil or label == "" then
    label = M.label_under_cursor()
  end
  if not label then
    notify("no label under the cursor; give one as the argument", vim.log.levels.WARN)
    return false
  end
  notify(busy .. " " .. label .. " ...")
  local arguments = { buf_uri(bufnr), label }
  if extra then
    table.insert(arguments, extra)
  end
  return M.execute(command, arguments, bufnr)
end

function M.review_claim(label)
  return label_command(M.server_commands.review_claim, label, "reviewing")
end

--- "Explore strategies"; with `solve` true, the whole research pipeline.
function M.explore(label, solve)
  return label_command(M.server_commands.explore, label, solve and "researching" or "exploring strategies for",
    solve and { solve = true } or nil)
end

function M.check_lean()
  local bufnr = vim.api.nvim_get_current_buf()
  notify("checking the Lean declarations ...")
  return M.execute(M.server_commands.lean, { buf_uri(bufnr) }, bufnr)
end

function M.review()
  local bufnr = vim.api.nvim_get_current_buf()
  notify("reviewing the paper ...")
  return M.execute(M.server_commands.review, { buf_uri(bufnr) }, bufnr)
end

function M.graph()
  local bufnr = vim.api.nvim_get_current_buf()
  return M.execute(M.server_commands.graph, { buf_uri(bufnr) }, bufnr)
end

function M.reindex()
  return M.execute(M.server_commands.reindex, {}, vim.api.nvim_get_current_buf())
end

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

local function status_handler(_, result)
  if type(result) == "table" then
    M.status = vim.tbl_extend("force", M.status, result)
  end
  pcall(vim.api.nvim_exec_autocmds, "User", { pattern = "ColosseumStatus", modeline = false })
  vim.cmd("redrawstatus")
  return vim.NIL
end

-- Server command ids mapped to client-side functions, so that code lenses and code actions
-- that carry these commands get their results handled too (e.g. the graph opens).
--- "Retract" needs the author's reason and LSP has no text prompt: ask, then send the command
--- with the reason as its third argument. A dismissed or empty answer retracts nothing.
function M.retract(arguments, bufnr)
  arguments = arguments or {}
  if arguments[3] ~= nil and vim.trim(tostring(arguments[3])) ~= "" then
    return M.execute(M.server_commands.retract, arguments, bufnr)
  end
  local entry = tostring(arguments[2] or "?")
  vim.ui.input({ prompt = "Retract " .. entry .. ", because: " }, function(reason)
    if reason == nil or vim.trim(reason) == "" then
      notify("nothing retracted (a retraction needs a reason)")
      return
    end
    M.execute(M.server_commands.retract, { arguments[1], arguments[2], vim.trim(reason) }, bufnr)
  end)
  return true
end

local function client_commands()
  local commands = {}
  for _, id in pairs(M.server_commands) do
    commands[id] = function(command, ctx)
      M.execute(command.command, command.arguments or {}, ctx and ctx.bufnr)
    end
  end
  commands[M.server_commands.retract] = function(command, ctx)
    M.retract(command.arguments, ctx and ctx.bufnr)
  end
  return commands
end

local codelens_group

local function on_attach(client, bufnr)
  if M.config.codelens and client.server_capabilities and client.server_capabilities.codeLensProvider then
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
  if M.config.on_attach then
    M.config.on_attach(client, bufnr)
  end
end

local function base_config()
  local cfg = M.config
  return {
    name = NAME,
    cmd = cfg.cmd,
    cmd_env = cfg.cmd_env,
    init_options = init_options(),
    settings = { colosseum = init_options() },
    capabilities = cfg.capabilities or vim.lsp.protocol.make_client_capabilities(),
    handlers = { ["colosseum/status"] = status_handler },
    commands = client_commands(),
    get_language_id = function()
      return "latex"
    end,
    on_init = function(client)
      -- Neovim >= 0.8 sends the settings after initialization by itself; 0.7 does not.
      if not has("nvim-0.8") and next(client.config.settings or {}) then
        client_notify(client, "workspace/didChangeConfiguration", { settings = client.config.settings })
      end
      return true
    end,
    on_attach = on_attach,
  }
end

-- Neovim < 0.11: one client per root directory, started from a FileType autocmd.
local clients_by_root = {}

local function attach_legacy(bufnr)
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= "" then
    return
  end
  local root = buf_root(bufnr)
  if not root then
    return
  end
  local id = clients_by_root[root]
  local client = id and vim.lsp.get_client_by_id(id)
  if not client or client_is_stopped(client) then
    local config = base_config()
    config.root_dir = root
    config.cmd_cwd = is_dir(root) and root or nil
    config.workspace_folders = { { uri = vim.uri_from_fname(root), name = root } }
    config.on_exit = function()
      if clients_by_root[root] == id then
        clients_by_root[root] = nil
      end
    end
    id = vim.lsp.start_client(config)
    if not id then
      notify("could not start the server: " .. table.concat(M.config.cmd, " "), vim.log.levels.ERROR)
      return
    end
    clients_by_root[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
end

local function setup_legacy()
  local group = vim.api.nvim_create_augroup("colosseum_lsp", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = M.config.filetypes,
    callback = function(args)
      attach_legacy(args.buf)
    end,
  })
  -- Buffers opened before setup().
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.tbl_contains(M.config.filetypes, vim.bo[bufnr].filetype) then
      attach_legacy(bufnr)
    end
  end
end

-- Neovim >= 0.11: vim.lsp.config + vim.lsp.enable.
local function setup_native()
  local config = base_config()
  config.name = nil
  config.filetypes = M.config.filetypes
  config.root_dir = function(bufnr, on_dir)
    local root = buf_root(bufnr)
    if root then
      on_dir(root)
    end
  end
  vim.lsp.config(NAME, config)
  vim.lsp.enable(NAME)
  -- vim.lsp.enable() starts the server for buffers already loaded only once Neovim has
  -- entered (vim_did_enter); a setup() during startup (`nvim main.tex -c ...`) does it here.
  if vim.v.vim_did_enter == 0 then
    for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(bufnr)
        and vim.bo[bufnr].buftype == ""
        and vim.tbl_contains(M.config.filetypes, vim.bo[bufnr].filetype)
      then
        local root = buf_root(bufnr)
        if root then
          local resolved = vim.deepcopy(vim.lsp.config[NAME])
          resolved.name = NAME
          resolved.root_dir = root
          vim.lsp.start(resolved, { bufnr = bufnr })
        end
      end
    end
  end
end

local function complete_labels(arg_lead)
  local labels, seen = {}, {}
  for _, line in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
    for label in strip_comment(line):gmatch("\\label%s*{([^{}]+)}") do
      label = vim.trim(label)
      if not seen[label] and label:sub(1, #arg_lead) == arg_lead then
        seen[label] = true
        table.insert(labels, label)
      end
    end
  end
  return labels
end

local function create_user_commands()
  vim.api.nvim_create_user_command("ColosseumSolve", function(opts)
    M.solve(opts.args)
  end, {
    nargs = "?",
    complete = complete_labels,
    desc = "Colosseum: solve the obligation of the label under the cursor (or given)",
  })
  vim.api.nvim_create_user_command("ColosseumReview", function()
    M.review()
  end, { nargs = 0, desc = "Colosseum: global review of the paper" })
  vim.api.nvim_create_user_command("ColosseumReviewClaim", function(opts)
    M.review_claim(opts.args)
  end, { nargs = "?", complete = complete_labels, desc = "Colosseum: local review of the claim under the cursor" })
  vim.api.nvim_create_user_command("ColosseumExplore", function(opts)
    M.explore(opts.args, opts.bang)
  end, {
    nargs = "?",
    bang = true,
    complete = complete_labels,
    desc = "Colosseum: explore strategies for a theorem (with !, the whole research pipeline)",
  })
  vim.api.nvim_create_user_command("ColosseumLean", function()
    M.check_lean()
  end, { nargs = 0, desc = "Colosseum: check the Lean declarations and inline Lean" })
  vim.api.nvim_create_user_command("ColosseumGraph", function()
    M.graph()
  end, { nargs = 0, desc = "Colosseum: open the dependency graph" })
  vim.api.nvim_create_user_command("ColosseumReindex", function()
    M.reindex()
  end, { nargs = 0, desc = "Colosseum: re-index the project" })
end

--- Pushes the current settings to the running servers (workspace/didChangeConfiguration).
function M.update_settings(settings)
  if settings then
    M.config.settings = settings
  end
  local clients = vim.lsp.get_clients and vim.lsp.get_clients({ name = NAME }) or vim.lsp.get_active_clients()
  for _, client in pairs(clients) do
    if client.name == NAME then
      client.config.settings = { colosseum = init_options() }
      client_notify(client, "workspace/didChangeConfiguration", { settings = { colosseum = init_options() or vim.empty_dict() } })
    end
  end
end

--- Explicit setup: nothing happens until this is called.
---@param opts table|nil see :help colosseum-setup
function M.setup(opts)
  opts = opts or {}
  local expected = {
    cmd = "table",
    cmd_env = "table",
    settings = "table",
    filetypes = "table",
    root_markers = "table",
    fallback_root_markers = "table",
    on_attach = "function",
    capabilities = "table",
  }
  for key, kind in pairs(expected) do
    if opts[key] ~= nil and type(opts[key]) ~= kind then
      error(string.format("colosseum.setup: `%s` must be a %s, got %s", key, kind, type(opts[key])), 2)
    end
  end
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts)
  -- Lists are replaced, not merged index by index.
  for _, key in ipairs({ "cmd", "filetypes", "root_markers", "fallback_root_markers" }) do
    if opts[key] then
      M.config[key] = opts[key]
    end
  end
  create_user_commands()
  if vim.lsp.config and vim.lsp.enable then
    setup_native()
  else
    setup_legacy()
  end
  return M
end

return M
