-- :ColosseumInsertDraft: a model's proof reaches the buffer only when the author picks it.
--
-- After :ColosseumSolve (or a research run, or a retry) the server applies nothing: it offers the
-- proof as a code action on the claim, "Insert draft proof of X (run R: <verdict>, N critiques
-- survive)". This lists those offers (the code actions at the cursor whose title starts with
-- "Insert draft"), shows the chosen one's text, and applies it; the action's command then tells
-- the server the draft was inserted. Every inserted proof carries `% colosseum: draft <run>` on
-- its first line: the claim stays a draft until the author accepts it.

local compat = require("colosseum.compat")

local notify = compat.notify

local drafts = {}

drafts.TITLE_PREFIX = "Insert draft "

--- The offers among a codeAction answer: CodeActions (not bare Commands) titled "Insert draft …".
function drafts.offers(actions)
  local found = {}
  for _, action in ipairs(actions or {}) do
    if type(action) == "table" and type(action.command) ~= "string" and type(action.title) == "string"
        and action.title:sub(1, #drafts.TITLE_PREFIX) == drafts.TITLE_PREFIX and action.edit then
      table.insert(found, action)
    end
  end
  return found
end

--- The text an offer inserts (its edits' new text, joined), for the author to read first.
function drafts.preview(action)
  local parts = {}
  local function add(edits)
    for _, e in ipairs(edits or {}) do
      if type(e.newText) == "string" then
        table.insert(parts, e.newText)
      end
    end
  end
  for _, change in ipairs(action.edit.documentChanges or {}) do
    add(change.edits)
  end
  for _, edits in pairs(action.edit.changes or {}) do
    add(edits)
  end
  return table.concat(parts, "\n")
end

--- Applies the chosen offer: its edit, then its command (the server drops the offer).
function drafts.apply(client, action, bufnr)
  vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding or "utf-16")
  if action.command and type(action.command.command) == "string" then
    require("colosseum.commands").execute(action.command.command, action.command.arguments or {}, bufnr)
  end
  notify("inserted: " .. action.title .. " (a draft until you accept it)")
end

local function choose(client, offers, bufnr, pick)
  if pick then
    local action = offers[pick]
    if not action then
      notify(string.format("there are %d draft offer(s) here, not %d", #offers, pick), vim.log.levels.WARN)
      return
    end
    return drafts.apply(client, action, bufnr)
  end
  vim.ui.select(offers, {
    prompt = "Insert which draft? (it is inserted as a draft, marked with its run)",
    format_item = function(action)
      local first = (drafts.preview(action):gsub("^%s+", "")):match("[^\n]*") or ""
      return action.title .. "  |  " .. first
    end,
  }, function(action)
    if action == nil then
      notify("nothing inserted")
      return
    end
    drafts.apply(client, action, bufnr)
  end)
end

--- Lists the draft offers of the claim under the cursor and inserts the one picked (with `pick`,
--- a number, that one without asking: for mappings and scripts).
function drafts.insert(pick)
  pick = tonumber(pick ~= "" and pick or nil)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = require("colosseum").get_client(bufnr)
  if not client then
    notify("no Colosseum server is attached to this buffer", vim.log.levels.WARN)
    return false
  end
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding or "utf-16")
  local range_params = {
    textDocument = params.textDocument,
    range = { start = params.position, ["end"] = params.position },
    context = { diagnostics = {} },
  }
  compat.request(client, "textDocument/codeAction", range_params, function(err, result)
    if err then
      notify("code actions failed: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    local offers = drafts.offers(result)
    if #offers == 0 then
      notify("no draft offer here: put the cursor on a claim that a solve, research run or retry "
        .. "offered a proof for", vim.log.levels.WARN)
      return
    end
    choose(client, offers, bufnr, pick)
  end, bufnr)
  return true
end

return drafts
