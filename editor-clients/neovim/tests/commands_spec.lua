-- Headless test of the Neovim client against editor-clients/testing/fake_server.py (no real server needed):
-- the label finder, the root finder, the user commands' workspace/executeCommand arguments,
-- the initializationOptions and didChangeConfiguration shapes, the graph path, the status.
--
--   FAKE_COLOSSEUM_LOG=/tmp/fake.log nvim --headless -u NONE \
--     --cmd "set rtp+=editor-clients/neovim" -c "luafile editor-clients/neovim/tests/commands_spec.lua"
--
-- Exit code 0 when every check passes, 1 otherwise (failures on stderr).

local this = debug.getinfo(1, "S").source:sub(2)
local tests_dir = vim.fn.fnamemodify(this, ":p:h")
local fake_server = vim.fn.fnamemodify(tests_dir .. "/../../testing/fake_server.py", ":p")
local log_path = assert(os.getenv("FAKE_COLOSSEUM_LOG"), "FAKE_COLOSSEUM_LOG must be set")
local python = os.getenv("PYTHON") or "python3"

vim.opt.swapfile = false
vim.opt.more = false
vim.g.tex_flavor = "latex"
vim.cmd("filetype on")

local failures, checks = {}, 0

local function check(cond, what)
  checks = checks + 1
  if not cond then
    table.insert(failures, what)
    io.stderr:write("FAIL: " .. what .. "\n")
  end
end

local function eq(actual, expected, what)
  check(vim.deep_equal(actual, expected), string.format("%s: expected %s, got %s", what, vim.inspect(expected), vim.inspect(actual)))
end

local function write(path, lines)
  vim.fn.mkdir(vim.fn.fnamemodify(path, ":h"), "p")
  vim.fn.writefile(lines, path)
end

local function log_entries()
  if vim.fn.filereadable(log_path) == 0 then
    return {}
  end
  local out = {}
  -- the fake server may be appending: a last line without its newline is still being written
  local lines = vim.fn.readfile(log_path, "b")
  if #lines > 0 and lines[#lines] ~= "" then
    table.remove(lines)
  end
  for _, line in ipairs(lines) do
    if line ~= "" then
      table.insert(out, vim.fn.json_decode(line))
    end
  end
  return out
end

local function wait_entry(pred, ms)
  local found
  vim.wait(ms or 10000, function()
    for _, e in ipairs(log_entries()) do
      if pred(e) then
        found = e
        return true
      end
    end
    return false
  end, 50)
  return found
end

local function executed_all(command)
  local out = {}
  for _, e in ipairs(log_entries()) do
    if e.method == "workspace/executeCommand" and e.params.command == command then
      table.insert(out, e)
    end
  end
  return out
end

-- The n-th (default first) workspace/executeCommand of `command`, waited for.
local function executed(command, n)
  local found
  vim.wait(10000, function()
    found = executed_all(command)[n or 1]
    return found ~= nil
  end, 50)
  return found
end

local project

local function run()
  local colosseum = require("colosseum")

  -- Label finder -------------------------------------------------------------------------------
  local line = [[By \cref{lem:aux, thm:big} and \lemref{x} and \begin{lemma}]]
  eq(colosseum.label_in_argument(line, line:find("lem:aux", 1, true) + 1), "lem:aux", "label in \\cref list (1st)")
  eq(colosseum.label_in_argument(line, line:find("thm:big", 1, true)), "thm:big", "label in \\cref list (2nd)")
  eq(colosseum.label_in_argument(line, 2), nil, "no label outside an argument")
  eq(colosseum.label_in_argument(line, line:find("x}", 1, true)), "x", "\\lemref (a *ref macro)")
  eq(colosseum.label_in_argument(line, line:find("lemma", 1, true)), nil, "\\begin argument is not a label")
  eq(colosseum.label_in_argument([[\uses{a,b}]], 10), "b", "\\uses list")
  eq(colosseum.label_in_argument([[\cref*[x]{a}]], 11), "a", "starred macro with optional argument")

  local doc = {
    [[\section{Main}\label{sec:main}]], -- 1
    [[\begin{lemma}[Key]\label{lem:key}]], -- 2
    [[  For all $n$.]], -- 3
    [[\end{lemma}]], -- 4
    [[\begin{proof}]], -- 5
    [[  By \cref{lem:aux}, and]], -- 6
    [[  \begin{equation}\label{eq:one} x \end{equation}]], -- 7
    [[\end{proof}]], -- 8
    [[Prose.]], -- 9
    [[\begin{theorem}]], -- 10
    [[  \label{thm:main} % \label{no}]], -- 11
    [[  Statement.]], -- 12
    [[\end{theorem}]], -- 13
    [[\begin{proof}[Proof of \cref{thm:main}] ]], -- 14
    [[  Trivial.]], -- 15
    [[\end{proof}]], -- 16
  }
  eq(colosseum.enclosing_label(doc, 3, 3), "lem:key", "inside a lemma")
  eq(colosseum.enclosing_label(doc, 6, 2), "lem:key", "inside its proof (not the equation's label)")
  eq(colosseum.enclosing_label(doc, 9, 2), nil, "prose after a proof")
  eq(colosseum.enclosing_label(doc, 12, 2), "thm:main", "label on the line after \\begin")
  eq(colosseum.enclosing_label(doc, 15, 2), "thm:main", "proof naming its claim")
  eq(colosseum.enclosing_label(doc, 1, 3), "sec:main", "section")

  -- A project ----------------------------------------------------------------------------------
  project = vim.fn.tempname()
  write(project .. "/main.tex", {
    [[\documentclass{article}]],
    [[\begin{document}]],
    [[\begin{lemma}\label{lem:a}]],
    [[  Easy.]],
    [[\end{lemma}]],
    [[\begin{theorem}\label{thm:b}]],
    [[  By \cref{missing,lem:a}, done.]],
    [[\end{theorem}]],
    [[\input{chapters/one}]],
    [[\end{document}]],
  })
  write(project .. "/chapters/one.tex", { [[\section{One}\label{sec:one}]], [[See \ref{thm:b}.]] })
  write(project .. "/nested/deeper/x.tex", { [[x]] })
  local real_project = vim.loop.fs_realpath(project)

  -- Root finder.
  eq(colosseum.find_root(project .. "/chapters/one.tex"), project, "root: directory of the \\documentclass file")
  eq(colosseum.find_root(project .. "/main.tex"), project, "root: the \\documentclass file itself")
  write(project .. "/chapters/colosseum.toml", { "" })
  eq(colosseum.find_root(project .. "/chapters/one.tex"), project .. "/chapters", "root: colosseum.toml wins")
  vim.fn.delete(project .. "/chapters/colosseum.toml")
  write(project .. "/nested/magic.tex", { "% !TEX root = ../main.tex", "x" })
  eq(colosseum.find_root(project .. "/nested/magic.tex"), project, "root: % !TEX root")
  -- as the server reads roots: a subfiles child or a standalone figure is none, nor a \documentclass
  -- shown in verbatim; a subfiles child names its main file
  write(project .. "/sub/s.tex", { [[\documentclass[../main.tex]{subfiles}]], [[\begin{document}x\end{document}]] })
  eq(colosseum.find_root(project .. "/sub/s.tex"), project, "root: a subfiles child's main file")
  write(project .. "/sub/t.tex", { [[\documentclass [ ../main ] {subfiles}]], "x" })
  eq(colosseum.find_root(project .. "/sub/t.tex"), project, "root: a subfiles child's main file, no .tex")
  write(project .. "/figs/f.tex", { [[\documentclass[tikz]{standalone}]], [[\begin{document}x\end{document}]] })
  eq(colosseum.find_root(project .. "/figs/f.tex"), project, "root: a standalone figure is no root")
  write(project .. "/howto/h.tex", { [[\begin{verbatim}]], [[\documentclass{article}]], [[\end{verbatim}]] })
  eq(colosseum.find_root(project .. "/howto/h.tex"), project, "root: a \\documentclass in verbatim is no root")
  write(project .. "/own/o.tex", { "% \\documentclass{book}", [[\documentclass[]], [[  a4paper]], [[]{amsart}]] })
  eq(colosseum.find_root(project .. "/own/o.tex"), project .. "/own", "root: a \\documentclass over lines")
  for _, d in ipairs({ "sub", "figs", "howto", "own" }) do
    vim.fn.delete(project .. "/" .. d, "rf")
  end
  local repo = vim.fn.tempname()
  vim.fn.mkdir(repo .. "/.git", "p")
  write(repo .. "/notes/a.tex", { [[No preamble here.]] })
  eq(colosseum.find_root(repo .. "/notes/a.tex"), repo, "root: fallback marker .git")
  vim.fn.delete(repo, "rf")

  -- Setup and attach ---------------------------------------------------------------------------
  colosseum.setup({
    cmd = { python, fake_server },
    settings = {
      model = "test-model",
      budget = { max_calls = 3, max_usd = 1.5 },
      labelReferenceCommands = { "lemref" },
      labelDefinitionCommands = {},
    },
    open_graph = false,
  })
  for _, name in ipairs({ "ColosseumSolve", "ColosseumReview", "ColosseumGraph", "ColosseumReindex",
    "ColosseumReviewClaim", "ColosseumExplore", "ColosseumLean" }) do
    check(vim.fn.exists(":" .. name) == 2, "user command :" .. name .. " exists")
  end

  vim.cmd("edit " .. vim.fn.fnameescape(project .. "/main.tex"))
  local bufnr = vim.api.nvim_get_current_buf()
  local uri = vim.uri_from_bufnr(bufnr)
  check(vim.wait(15000, function()
    return colosseum.get_client(bufnr) ~= nil
  end, 50), "the client attaches to a tex buffer")

  local init = wait_entry(function(e)
    return e.method == "initialize"
  end)
  check(init ~= nil, "initialize was sent")
  if init then
    eq(init.params.initializationOptions, {
      model = "test-model",
      budget = { max_calls = 3, max_usd = 1.5 },
      labelReferenceCommands = { "lemref" },
    }, "initializationOptions (empty lists left out)")
    local root_path = vim.uri_to_fname(init.params.rootUri)
    check(root_path == project or root_path == real_project, "rootUri is the project: " .. tostring(init.params.rootUri))
  end
  local opened = wait_entry(function(e)
    return e.method == "textDocument/didOpen"
  end)
  eq(opened and opened.params.languageId, "latex", "languageId")
  local conf = wait_entry(function(e)
    return e.method == "workspace/didChangeConfiguration"
  end)
  eq(conf and conf.params.settings.colosseum.model, "test-model", "didChangeConfiguration after init")

  check(vim.wait(10000, function()
    return type(colosseum.status.obligations) == "number"
  end, 50), "colosseum/status notification handled")
  eq(colosseum.status.state, "ready", "status state")
  check(colosseum.statusline():match("Colosseum: %d+ open") ~= nil, "statusline: " .. colosseum.statusline())
  local status_events = 0
  vim.api.nvim_create_autocmd("User", {
    pattern = "ColosseumStatus",
    callback = function()
      status_events = status_events + 1
    end,
  })
  local status_handler = colosseum.get_client(bufnr).handlers["colosseum/status"]
  check(status_handler ~= nil, "the client handles colosseum/status")
  if status_handler then
    local obligations = colosseum.status.obligations
    status_handler(nil, { state = "indexing" }, {})
    eq(colosseum.statusline(), "Colosseum: indexing", "statusline while indexing")
    eq(colosseum.status.obligations, obligations, "a status update keeps the fields it does not carry")
    check(status_events == 1, "User ColosseumStatus fires on a status notification")
    status_handler(nil, { state = "ready" }, {})
  end
  check(vim.wait(10000, function()
    return #vim.diagnostic.get(bufnr) > 0
  end, 50), "diagnostics shown")

  -- Commands -----------------------------------------------------------------------------------
  -- Cursor on lem:a in \cref{missing,lem:a}.
  local l7 = vim.api.nvim_buf_get_lines(bufnr, 6, 7, false)[1]
  vim.api.nvim_win_set_cursor(0, { 7, (l7:find("lem:a", 1, true)) })
  vim.cmd("ColosseumSolve")
  local e = executed("colosseum.solveObligation", 1)
  eq(e and e.params.arguments, { uri, "lem:a" }, ":ColosseumSolve, label under the cursor")

  vim.cmd("ColosseumSolve thm:b")
  e = executed("colosseum.solveObligation", 2)
  eq(e and e.params.arguments, { uri, "thm:b" }, ":ColosseumSolve <label>")

  vim.api.nvim_win_set_cursor(0, { 7, 1 })
  vim.cmd("ColosseumSolve")
  e = executed("colosseum.solveObligation", 3)
  eq(e and e.params.arguments, { uri, "thm:b" }, ":ColosseumSolve inside a claim")

  -- No label under the cursor and none given: a warning, nothing sent.
  local messages = {}
  local real_notify = vim.notify
  vim.notify = function(msg, level)
    table.insert(messages, { msg = msg, level = level })
  end
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.cmd("ColosseumSolve")
  vim.cmd("ColosseumReviewClaim")
  vim.notify = real_notify
  eq(messages[1], { msg = "Colosseum: no label under the cursor; give one: :ColosseumSolve <label>", level = vim.log.levels.WARN },
    ":ColosseumSolve without a label warns")
  eq(messages[2], { msg = "Colosseum: no label under the cursor; give one as the argument", level = vim.log.levels.WARN },
    ":ColosseumReviewClaim without a label warns")
  vim.wait(300)
  check(#executed_all("colosseum.solveObligation") == 3, "no solveObligation without a label")
  check(#executed_all("colosseum.reviewClaim") == 0, "no reviewClaim without a label")

  -- Label arguments complete from the buffer's \label commands.
  eq(vim.fn.getcompletion("ColosseumSolve ", "cmdline"), { "lem:a", "thm:b" }, "label completion")
  eq(vim.fn.getcompletion("ColosseumExplore th", "cmdline"), { "thm:b" }, "label completion by prefix")

  vim.cmd("ColosseumReview")
  e = executed("colosseum.globalReview")
  eq(e and e.params.arguments, { uri }, ":ColosseumReview")

  -- A code action's "Retract" runs client-side: the reason is asked, then sent as the third argument.
  local asked = {}
  local real_input = vim.ui.input
  vim.ui.input = function(opts, on_confirm)
    table.insert(asked, opts.prompt)
    on_confirm(#asked == 1 and "  " or " the constant is wrong ")
  end
  local retract = vim.lsp.commands["colosseum.retractEntry"]
    or (colosseum.get_client(bufnr).config.commands or {})["colosseum.retractEntry"]
  check(retract ~= nil, "the client handles colosseum.retractEntry itself")
  if retract then
    retract({ command = "colosseum.retractEntry", arguments = { uri, "my-entry" } }, { bufnr = bufnr })
    retract({ command = "colosseum.retractEntry", arguments = { uri, "my-entry" } }, { bufnr = bufnr })
    e = executed("colosseum.retractEntry", 1)
    eq(e and e.params.arguments, { uri, "my-entry", "the constant is wrong" }, "retract: the reason is asked and sent trimmed")
    check(#executed_all("colosseum.retractEntry") == 1, "retract: an empty reason sends nothing")
    check(asked[1] ~= nil and asked[1]:find("my-entry", 1, true) ~= nil, "retract: the prompt names the entry")
  end
  vim.ui.input = real_input

  vim.cmd("ColosseumReviewClaim thm:b")
  e = executed("colosseum.reviewClaim")
  eq(e and e.params.arguments, { uri, "thm:b" }, ":ColosseumReviewClaim <label>")
  vim.cmd("ColosseumExplore thm:b")
  e = executed("colosseum.exploreStrategies", 1)
  eq(e and e.params.arguments, { uri, "thm:b" }, ":ColosseumExplore <label>")
  vim.cmd("ColosseumExplore! thm:b")
  e = executed("colosseum.exploreStrategies", 2)
  eq(e and e.params.arguments, { uri, "thm:b", { solve = true } }, ":ColosseumExplore! runs the research pipeline")
  vim.cmd("ColosseumLean")
  e = executed("colosseum.checkLean")
  eq(e and e.params.arguments, { uri }, ":ColosseumLean")

  vim.cmd("ColosseumReindex")
  e = executed("colosseum.reindex")
  check(e ~= nil and (e.params.arguments == nil or #e.params.arguments == 0), ":ColosseumReindex has no arguments")

  vim.cmd("ColosseumGraph")
  e = executed("colosseum.showDependencyGraph")
  eq(e and e.params.arguments, { uri }, ":ColosseumGraph")
  check(vim.wait(10000, function()
    return colosseum.last_graph ~= nil
  end, 50), ":ColosseumGraph got a path")
  if colosseum.last_graph then
    check(vim.fn.filereadable(colosseum.last_graph) == 1, "graph file exists")
    check(vim.fn.execute("messages"):find(colosseum.last_graph, 1, true) ~= nil, "graph path echoed")
    vim.fn.delete(colosseum.last_graph)
  end

  -- A code lens carrying a server command goes through the plugin (the graph opens).
  colosseum.last_graph = nil
  check(vim.wait(10000, function()
    pcall(vim.lsp.codelens.refresh)
    return #vim.lsp.codelens.get(bufnr) > 0
  end, 200), "code lenses shown")
  local lens = vim.lsp.codelens.get(bufnr)[1]
  if lens then
    vim.api.nvim_win_set_cursor(0, { lens.range.start.line + 1, 0 })
    vim.lsp.codelens.run()
    e = executed("colosseum.showDependencyGraph", 2)
    eq(e and e.params.arguments, { uri }, "code lens command")
    check(vim.wait(10000, function()
      return colosseum.last_graph ~= nil
    end, 50), "code lens: graph path handled by the plugin")
    if colosseum.last_graph then
      vim.fn.delete(colosseum.last_graph)
    end
  end

  -- Settings change ------------------------------------------------------------------------------
  colosseum.update_settings({ model = "other-model", budget = { max_usd = 2 } })
  local changed = wait_entry(function(x)
    return x.method == "workspace/didChangeConfiguration" and x.params.settings.colosseum.model == "other-model"
  end)
  eq(changed and changed.params.settings.colosseum, { model = "other-model", budget = { max_usd = 2 } }, "didChangeConfiguration on update_settings")

  -- A second buffer of the same project shares the client.
  vim.cmd("edit " .. vim.fn.fnameescape(project .. "/chapters/one.tex"))
  local second = vim.api.nvim_get_current_buf()
  check(vim.wait(10000, function()
    return colosseum.get_client(second) ~= nil
  end, 50), "client attaches to the second buffer")
  local c1, c2 = colosseum.get_client(bufnr), colosseum.get_client(second)
  check(c1 and c2 and c1.id == c2.id, "one client per project root")
end

local ok, err = xpcall(run, debug.traceback)
if not ok then
  table.insert(failures, "error: " .. tostring(err))
  io.stderr:write("ERROR: " .. tostring(err) .. "\n")
end
if project then
  vim.fn.delete(project, "rf")
end
io.stderr:write(string.format("commands_spec: %d checks, %d failures\n", checks, #failures))
if #failures > 0 then
  vim.cmd("cquit 1")
else
  vim.cmd("qall!")
end
