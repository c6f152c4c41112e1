-- Headless test of :ColosseumInsertDraft against the real server (plain Lua): a solve applies
-- nothing; the command lists the draft offers (code actions) and inserts the one picked, marked.
--
--   COLOSSEUM_NVIM_OUT=/tmp/out.json COLOSSEUM_NVIM_FILE=<paper>/sections/main-result.tex \
--   COLOSSEUM_NVIM_CMD='["python", "-m", "colosseum", "serve"]' \
--   nvim --headless -u tests/neovim/minimal_init.lua -c "luafile tests/neovim/insert_draft_spec.lua"
--
-- The server needs a model: tests/test_neovim_drafts.py gives it a scripted Messages API.
-- Writes a JSON report and quits: exit code 0 when it ran to the end, 1 on a timeout.

local out_path = os.getenv("COLOSSEUM_NVIM_OUT") or "insert-draft-report.json"
local file = os.getenv("COLOSSEUM_NVIM_FILE") or ""
local cmd_json = os.getenv("COLOSSEUM_NVIM_CMD") or '["colosseum", "serve"]'
local LABEL = "lem:resampling"
local MARKER = "%% colosseum: draft"

local report = { errors = {}, apply_edit_requests = 0, choices = {}, ok = false }

local function finish(code)
  local f = assert(io.open(out_path, "w"))
  f:write(vim.fn.json_encode(report))
  f:close()
  vim.cmd(code == 0 and "qall!" or ("cquit " .. code))
end

local function marked_lines(bufnr)
  local found = {}
  for i, line in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    if line:find(MARKER) then
      table.insert(found, { line = i - 1, text = line })
    end
  end
  return found
end

-- a request to apply an edit would be the server inserting unasked: count any
local default_apply = vim.lsp.handlers["workspace/applyEdit"]
vim.lsp.handlers["workspace/applyEdit"] = function(...)
  report.apply_edit_requests = report.apply_edit_requests + 1
  return default_apply(...)
end

-- the author's pick: the first offer (what was listed is recorded)
vim.ui.select = function(items, opts, on_choice)
  for _, item in ipairs(items) do
    table.insert(report.choices, opts.format_item and opts.format_item(item) or tostring(item))
  end
  on_choice(items[1], 1)
end

local function main()
  local colosseum = require("colosseum")
  colosseum.setup({ cmd = vim.fn.json_decode(cmd_json) })
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  if not vim.wait(30000, function() return colosseum.get_client(bufnr) ~= nil end, 100) then
    table.insert(report.errors, "the server did not attach")
    return 1
  end
  -- the claim's line: where the offer is
  local lines_before = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local claim_line
  for i, line in ipairs(lines_before) do
    if line:find("\\label{" .. LABEL .. "}", 1, true) then
      claim_line = i
    end
  end
  vim.api.nvim_win_set_cursor(0, { claim_line, 0 })
  local done
  require("colosseum.commands").execute("colosseum.solveObligation", { vim.uri_from_bufnr(bufnr), LABEL }, bufnr,
    function(err, result)
      done = { err = err and (err.message or vim.inspect(err)) or nil, result = result }
    end)
  if not vim.wait(120000, function() return done ~= nil end, 100) then
    table.insert(report.errors, "the solve did not answer")
    return 1
  end
  report.solve = done
  report.marked_after_solve = #marked_lines(bufnr)
  report.changed_by_solve = not vim.deep_equal(lines_before, vim.api.nvim_buf_get_lines(bufnr, 0, -1, false))
  vim.api.nvim_win_set_cursor(0, { claim_line, 0 })
  vim.cmd("ColosseumInsertDraft")
  if not vim.wait(30000, function() return #marked_lines(bufnr) > 0 end, 100) then
    table.insert(report.errors, "no draft was inserted")
    return 1
  end
  report.marked = marked_lines(bufnr)
  -- the offer was inserted once: the server dropped it (the action's command ran)
  local client = colosseum.get_client(bufnr)
  local remaining
  vim.wait(30000, function()
    local params = {
      textDocument = { uri = vim.uri_from_bufnr(bufnr) },
      range = { start = { line = claim_line - 1, character = 0 }, ["end"] = { line = claim_line - 1, character = 0 } },
      context = { diagnostics = {} },
    }
    local responses = vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", params, 10000) or {}
    local answer = responses[client.id]
    remaining = #require("colosseum.drafts").offers(answer and answer.result or {})
    return remaining == 0
  end, 500)
  report.offers_after_insert = remaining
  report.ok = true
  return 0
end

local ok, code = pcall(main)
if not ok then
  table.insert(report.errors, tostring(code))
  code = 2
end
finish(code)
