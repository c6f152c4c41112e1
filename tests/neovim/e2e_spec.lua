-- End-to-end test of the Neovim client against the real Colosseum server (plain Lua).
--
--   COLOSSEUM_NVIM_OUT=/tmp/out.json \
--   nvim --headless -u tests/neovim/minimal_init.lua -c "luafile tests/neovim/e2e_spec.lua"
--
-- Environment:
--   COLOSSEUM_NVIM_OUT   (required) where the JSON result is written
--   COLOSSEUM_NVIM_CMD   server command line as a JSON array (default ["colosseum", "serve"])
--   COLOSSEUM_NVIM_FILE  file to open (default <repo>/example-project/main.tex)
--   COLOSSEUM_NVIM_TIMEOUT_MS  how long to wait for diagnostics (default 60000)
--   COLOSSEUM_NVIM_COMPLETE  (optional) a partial reference, e.g. `See \cref{lem:degree-ar`: typed
--                        on a new last line and completed with vim.lsp.omnifunc (<C-x><C-o>); the
--                        report's `completion` holds the offered words and the line after
--
-- Loads the plugin, opens the file, waits for the server's diagnostics, puts the cursor on the
-- argument of a \cref{...}/\ref{...} whose label is defined in the project, asks for
-- textDocument/definition, writes everything as JSON and quits: exit code 0 when diagnostics
-- came and the definition request was answered, 1 on a timeout, 2 on an error of this script.

local repo = vim.g.colosseum_test_repo or vim.fn.getcwd()
local out_path = os.getenv("COLOSSEUM_NVIM_OUT")
local file = os.getenv("COLOSSEUM_NVIM_FILE") or (repo .. "/example-project/main.tex")
local timeout = tonumber(os.getenv("COLOSSEUM_NVIM_TIMEOUT_MS") or "") or 60000

local report = {
  nvim_version = tostring(vim.version().major) .. "." .. vim.version().minor .. "." .. vim.version().patch,
  file = file,
  diagnostics = {},
  definition = nil,
  status = nil,
  errors = {},
  ok = false,
}

local function log(msg)
  io.stderr:write("[e2e] " .. msg .. "\n")
end

local function write_report()
  if not out_path or out_path == "" then
    log("COLOSSEUM_NVIM_OUT is not set; report:\n" .. vim.inspect(report))
    return
  end
  local f = assert(io.open(out_path, "w"))
  f:write(vim.fn.json_encode(report))
  f:close()
end

local function finish(code)
  write_report()
  if code == 0 then
    vim.cmd("qall!")
  else
    vim.cmd("cquit " .. code)
  end
end

local SEVERITY = { "error", "warning", "information", "hint" }

local function collect_diagnostics()
  local out = {}
  for _, d in ipairs(vim.diagnostic.get()) do
    local lsp = (d.user_data or {}).lsp or {}
    local name = vim.api.nvim_buf_get_name(d.bufnr)
    table.insert(out, {
      file = name,
      uri = vim.uri_from_fname(name),
      lnum = d.lnum,
      col = d.col,
      end_lnum = d.end_lnum,
      end_col = d.end_col,
      severity = SEVERITY[d.severity] or d.severity,
      message = d.message,
      source = d.source,
      code = d.code or lsp.code,
    })
  end
  return out
end

local function colosseum_client(bufnr)
  return require("colosseum").get_client(bufnr)
end

local function line_of(fname, line0)
  local bufnr = vim.fn.bufnr(fname)
  if bufnr ~= -1 and vim.api.nvim_buf_is_loaded(bufnr) then
    return vim.api.nvim_buf_get_lines(bufnr, line0, line0 + 1, false)[1]
  end
  local ok, lines = pcall(vim.fn.readfile, fname)
  if ok then
    return lines[line0 + 1]
  end
  return nil
end

-- The plugin's reading of LaTeX comments and \label commands, used here only to pick a
-- reference to follow; where the definition lands is checked against the file's text.
local latex = require("colosseum.labels")

-- Every \label{...} defined in the .tex files under `root`: label -> file.
local function defined_labels(root)
  local labels = {}
  for _, path in ipairs(vim.fn.glob(root .. "/**/*.tex", true, true)) do
    local ok, lines = pcall(vim.fn.readfile, path)
    if ok then
      for _, label in ipairs(latex.defined(lines)) do
        labels[label] = path
      end
    end
  end
  return labels
end

local REF_COMMANDS = { ref = true, cref = true, Cref = true, autoref = true, eqref = true }

-- First \cref{..}/\ref{..} in `lines` whose (first) label is defined: line (1-based), byte
-- column of the label's first character (1-based), label, command.
local function find_reference(lines, labels)
  for lnum, line in ipairs(lines) do
    -- arg_start: the byte index of the argument's first character.
    for name, arg_start, arg in latex.strip_comment(line):gmatch("\\(%a+)%*?{()([^{}]*)}") do
      if REF_COMMANDS[name] then
        local offset = arg_start
        for item in (arg .. ","):gmatch("([^,]*),") do
          local label = vim.trim(item)
          if label ~= "" and labels[label] then
            local lead = #item:match("^%s*")
            return lnum, offset + lead, label, name
          end
          offset = offset + #item + 1
        end
      end
    end
  end
  return nil
end

local function normalize_locations(result)
  if result == nil or result == vim.NIL then
    return {}
  end
  if result.uri or result.targetUri then
    result = { result }
  end
  local out = {}
  for _, loc in ipairs(result) do
    local uri = loc.uri or loc.targetUri
    local range = loc.range or loc.targetSelectionRange or loc.targetRange
    local fname = vim.uri_to_fname(uri)
    table.insert(out, {
      uri = uri,
      file = fname,
      line = range.start.line,
      character = range.start.character,
      end_line = range["end"].line,
      end_character = range["end"].character,
      text = line_of(fname, range.start.line),
    })
  end
  return out
end

local COMPLETING = "completing" -- main's answer when the completion below finishes the run

-- Omnifunc completion, as a user without a completion plugin has it: the partial reference typed
-- on a new last line of the buffer (not saved), <C-x><C-o>, and the first match inserted. The
-- answer comes asynchronously in Insert mode, so the main loop runs it and this finishes the run.
local function complete_then_finish(bufnr, typed)
  local n = vim.api.nvim_buf_line_count(bufnr)
  vim.api.nvim_buf_set_lines(bufnr, n, n, false, { typed })
  vim.api.nvim_win_set_cursor(0, { n + 1, 0 })
  vim.bo[bufnr].omnifunc = "v:lua.vim.lsp.omnifunc"
  vim.opt.completeopt = "menu"
  report.completion = { typed = typed, words = {}, line = typed }
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("A<C-x><C-o>", true, false, true), "n", false)
  local started = vim.loop.now()
  local timer = vim.loop.new_timer()
  timer:start(100, 100, vim.schedule_wrap(function()
    local items = vim.fn.complete_info({ "items" }).items
    if #items == 0 and vim.loop.now() - started < 15000 then
      return
    end
    timer:stop()
    report.completion.words = vim.tbl_map(function(item)
      return item.word
    end, items)
    report.completion.line = vim.api.nvim_buf_get_lines(bufnr, n, n + 1, false)[1]
    log("completed: " .. report.completion.line)
    vim.cmd("stopinsert")
    finish(0)
  end))
end

local function main()
  if vim.fn.filereadable(file) == 0 then
    table.insert(report.errors, "file not found: " .. file)
    return 2
  end
  local cmd = { "colosseum", "serve" }
  local cmd_json = os.getenv("COLOSSEUM_NVIM_CMD")
  if cmd_json and cmd_json ~= "" then
    cmd = vim.fn.json_decode(cmd_json)
  end
  report.cmd = cmd

  local colosseum = require("colosseum")
  colosseum.setup({ cmd = cmd })

  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  report.filetype = vim.bo[bufnr].filetype

  -- The server starts and attaches.
  local attached = vim.wait(20000, function()
    local client = colosseum_client(bufnr)
    return client ~= nil and client.initialized ~= false
  end, 100)
  local client = colosseum_client(bufnr)
  if not attached or not client then
    table.insert(report.errors, "the Colosseum server did not attach to " .. file)
    return 1
  end
  report.root = client.config.root_dir
  report.client_name = client.name
  log("attached: root " .. tostring(report.root))

  -- Diagnostics arrive, then settle (no change for 2 s, at most 15 s more).
  local got = vim.wait(timeout, function()
    return #vim.diagnostic.get() > 0
  end, 200)
  if not got then
    report.diagnostics = collect_diagnostics()
    report.status = colosseum.status
    table.insert(report.errors, string.format("no diagnostics within %d ms", timeout))
    return 1
  end
  local count, stable_since = -1, vim.loop.now()
  vim.wait(15000, function()
    local n = #vim.diagnostic.get()
    if n ~= count then
      count, stable_since = n, vim.loop.now()
    end
    return vim.loop.now() - stable_since >= 2000
  end, 200)
  report.diagnostics = collect_diagnostics()
  report.status = colosseum.status
  log(string.format("%d diagnostics", #report.diagnostics))

  -- Go to definition from a reference whose label is defined somewhere in the project.
  local root = report.root or vim.fn.fnamemodify(file, ":h")
  local labels = defined_labels(root)
  local target_buf, lnum, col, label, command = bufnr, nil, nil, nil, nil
  lnum, col, label, command = find_reference(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), labels)
  if not lnum then
    -- main.tex may only \input the chapters: take the first project file with a reference.
    for _, path in ipairs(vim.fn.glob(root .. "/**/*.tex", true, true)) do
      local ok, lines = pcall(vim.fn.readfile, path)
      if ok then
        lnum, col, label, command = find_reference(lines, labels)
        if lnum then
          vim.cmd("edit " .. vim.fn.fnameescape(path))
          target_buf = vim.api.nvim_get_current_buf()
          vim.wait(10000, function()
            return colosseum_client(target_buf) ~= nil
          end, 100)
          break
        end
      end
    end
  end
  if not lnum then
    table.insert(report.errors, "no \\cref/\\ref to a defined label found in the project")
    return 1
  end
  -- The cursor on the label's second character (inside the argument).
  local line_text = vim.api.nvim_buf_get_lines(target_buf, lnum - 1, lnum, false)[1]
  local cursor_col = math.min(col, #line_text - 1) -- 0-based byte column = col - 1 + 1
  vim.api.nvim_win_set_cursor(0, { lnum, cursor_col })
  local def_client = colosseum_client(target_buf)
  local encoding = (def_client and def_client.offset_encoding) or "utf-16"
  local params = vim.lsp.util.make_position_params(0, encoding)
  report.definition = {
    label = label,
    command = command,
    from = {
      file = vim.api.nvim_buf_get_name(target_buf),
      line = lnum - 1,
      character = params.position.character,
      text = line_text,
    },
    locations = {},
  }
  local answered = false
  for _ = 1, 5 do
    local responses, err = vim.lsp.buf_request_sync(target_buf, "textDocument/definition", params, 15000)
    if responses then
      for client_id, response in pairs(responses) do
        local c = vim.lsp.get_client_by_id(client_id)
        if c and c.name == "colosseum" then
          answered = true
          if response.error then
            report.definition.error = response.error
          else
            report.definition.locations = normalize_locations(response.result)
          end
        end
      end
    elseif err then
      report.definition.error = tostring(err)
    end
    if #report.definition.locations > 0 then
      break
    end
    vim.wait(1000)
  end
  log(string.format("definition of %s: %d location(s)", label, #report.definition.locations))
  if not answered then
    table.insert(report.errors, "textDocument/definition was not answered")
    return 1
  end
  report.ok = true
  local typed = os.getenv("COLOSSEUM_NVIM_COMPLETE")
  if typed and typed ~= "" then
    complete_then_finish(target_buf, typed)
    return COMPLETING
  end
  return 0
end

local ok, code = xpcall(main, debug.traceback)
if not ok then
  table.insert(report.errors, tostring(code))
  log(tostring(code))
  code = 2
end
if code ~= COMPLETING then
  finish(code)
end
