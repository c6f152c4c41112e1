-- Server commands (workspace/executeCommand): the user commands (:ColosseumSolve, ...), the
-- commands carried by code lenses and code actions, and what is done with their results.

local compat = require("colosseum.compat")
local labels = require("colosseum.labels")

local notify = compat.notify

local commands = {}

-- The plugin's state (config, server_commands, last_graph) lives on the `colosseum` module,
-- which requires this one, so it is looked up when needed.
local function plugin()
  return require("colosseum")
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
  if compat.has("mac") then
    opener = { "open", path }
  elseif compat.has("win32") then
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
function commands.handle_result(command, result)
  local colosseum = plugin()
  if command == colosseum.server_commands.graph then
    local path = graph_path(result)
    if not path then
      notify("the server returned no graph path: " .. vim.inspect(result), vim.log.levels.WARN)
      return
    end
    colosseum.last_graph = path
    if colosseum.config.open_graph then
      open_path(path)
    end
    vim.api.nvim_echo({ { "Colosseum: dependency graph: " .. path } }, true, {})
    return
  end
  local message = result_message(result)
  if message and type(result) == "table" and result.offered == true then
    notify(message .. " (insert it with :ColosseumInsertDraft on the claim)")
  elseif message then
    notify(message)
  elseif command == colosseum.server_commands.reindex then
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
function commands.execute(command, arguments, bufnr, on_done)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = plugin().get_client(bufnr)
  if not client then
    notify("no Colosseum server is attached to this buffer", vim.log.levels.WARN)
    return false
  end
  local params = { command = command, arguments = arguments }
  compat.request(client, "workspace/executeCommand", params, function(err, result)
    if err then
      notify(command .. " failed: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    else
      commands.handle_result(command, result)
    end
    if on_done then
      on_done(err, result)
    end
  end, bufnr)
  return true
end

--- Runs a server command about the current buffer (arguments: its URI), saying `busy` first.
local function buffer_command(command, busy)
  local bufnr = vim.api.nvim_get_current_buf()
  if busy then
    notify(busy .. " ...")
  end
  return commands.execute(command, { vim.uri_from_bufnr(bufnr) }, bufnr)
end

--- Runs a server command about a label, the one given or else the one under the cursor
--- (arguments: the buffer's URI, the label, then `extra` when given). `usage` ends the warning
--- when there is no label.
local function label_command(command, label, busy, extra, usage)
  local bufnr = vim.api.nvim_get_current_buf()
  if label == nil or label == "" then
    label = labels.under_cursor(plugin().config.settings)
  end
  if not label then
    notify("no label under the cursor; " .. (usage or "give one as the argument"), vim.log.levels.WARN)
    return false
  end
  notify(busy .. " " .. label .. " ...")
  local arguments = { vim.uri_from_bufnr(bufnr), label }
  if extra then
    table.insert(arguments, extra)
  end
  return commands.execute(command, arguments, bufnr)
end

function commands.solve(label)
  local usage = "give one: :ColosseumSolve <label>"
  return label_command(plugin().server_commands.solve, label, "solving", nil, usage)
end

function commands.review_claim(label)
  return label_command(plugin().server_commands.review_claim, label, "reviewing")
end

--- "Explore strategies"; with `solve` true, the whole research pipeline.
function commands.explore(label, solve)
  local busy = solve and "researching" or "exploring strategies for"
  return label_command(plugin().server_commands.explore, label, busy, solve and { solve = true } or nil)
end

--- Lists the draft offers on the claim under the cursor and inserts the one picked (colosseum.drafts).
function commands.insert_draft(pick)
  return require("colosseum.drafts").insert(pick)
end

function commands.check_lean()
  return buffer_command(plugin().server_commands.lean, "checking the Lean declarations")
end

function commands.review()
  return buffer_command(plugin().server_commands.review, "reviewing the paper")
end

function commands.graph()
  return buffer_command(plugin().server_commands.graph)
end

function commands.reindex()
  return commands.execute(plugin().server_commands.reindex, {}, vim.api.nvim_get_current_buf())
end

--- "Retract" needs the author's reason and LSP has no text prompt: ask, then send the command
--- with the reason as its third argument. A dismissed or empty answer retracts nothing.
function commands.retract(arguments, bufnr)
  local retract = plugin().server_commands.retract
  arguments = arguments or {}
  if arguments[3] ~= nil and vim.trim(tostring(arguments[3])) ~= "" then
    return commands.execute(retract, arguments, bufnr)
  end
  local entry = tostring(arguments[2] or "?")
  vim.ui.input({ prompt = "Retract " .. entry .. ", because: " }, function(reason)
    if reason == nil or vim.trim(reason) == "" then
      notify("nothing retracted (a retraction needs a reason)")
      return
    end
    commands.execute(retract, { arguments[1], arguments[2], vim.trim(reason) }, bufnr)
  end)
  return true
end

--- Server command ids mapped to client-side functions, so that code lenses and code actions
--- that carry these commands get their results handled too (e.g. the graph opens).
function commands.client_side()
  local server_commands = plugin().server_commands
  local handlers = {}
  for _, id in pairs(server_commands) do
    handlers[id] = function(command, ctx)
      commands.execute(command.command, command.arguments or {}, ctx and ctx.bufnr)
    end
  end
  handlers[server_commands.retract] = function(command, ctx)
    commands.retract(command.arguments, ctx and ctx.bufnr)
  end
  return handlers
end

local function complete_labels(arg_lead)
  local found, seen = {}, {}
  for _, label in ipairs(labels.defined(vim.api.nvim_buf_get_lines(0, 0, -1, false))) do
    if not seen[label] and label:sub(1, #arg_lead) == arg_lead then
      seen[label] = true
      table.insert(found, label)
    end
  end
  return found
end

-- `run`: the function of this module the command calls; `label`: it takes an optional label,
-- completed from the buffer's \label commands; `arg`: it takes an optional argument of its own; `bang`: it takes a ! (passed on as a flag).
local USER_COMMANDS = {
  { name = "ColosseumSolve", run = "solve", label = true,
    desc = "solve the obligation of the label under the cursor (or given)" },
  { name = "ColosseumReview", run = "review", desc = "global review of the paper" },
  { name = "ColosseumReviewClaim", run = "review_claim", label = true,
    desc = "local review of the claim under the cursor" },
  { name = "ColosseumExplore", run = "explore", label = true, bang = true,
    desc = "explore strategies for a theorem (with !, the whole research pipeline)" },
  { name = "ColosseumInsertDraft", run = "insert_draft", arg = true,
    desc = "insert a draft proof offered for the claim under the cursor (pick one; or give its number)" },
  { name = "ColosseumLean", run = "check_lean", desc = "check the Lean declarations and inline Lean" },
  { name = "ColosseumGraph", run = "graph", desc = "open the dependency graph" },
  { name = "ColosseumReindex", run = "reindex", desc = "re-index the project" },
}

local function user_command_callback(spec)
  local run = commands[spec.run]
  if spec.bang then
    return function(opts)
      run(opts.args, opts.bang)
    end
  elseif spec.label or spec.arg then
    return function(opts)
      run(opts.args)
    end
  end
  return function()
    run()
  end
end

function commands.create_user_commands()
  for _, spec in ipairs(USER_COMMANDS) do
    vim.api.nvim_create_user_command(spec.name, user_command_callback(spec), {
      nargs = (spec.label or spec.arg) and "?" or 0,
      bang = spec.bang,
      complete = spec.label and complete_labels or nil,
      desc = "Colosseum: " .. spec.desc,
    })
  end
end

return commands
