-- What differs between Neovim 0.7 and 0.11+ (client method calls, client lookup), and the
-- plugin's one way to show a message.

local compat = {}

compat.uv = vim.uv or vim.loop
compat.islist = vim.islist or vim.tbl_islist

function compat.has(feature)
  return vim.fn.has(feature) == 1
end

function compat.notify(msg, level)
  vim.notify("Colosseum: " .. msg, level or vim.log.levels.INFO)
end

-- Client methods are called `client:request(...)` from 0.11 on and `client.request(...)` before.
local function call(client, method, ...)
  if compat.has("nvim-0.11") then
    return client[method](client, ...)
  end
  return client[method](...)
end

function compat.request(client, method, params, handler, bufnr)
  return call(client, "request", method, params, handler, bufnr)
end

function compat.notify_server(client, method, params)
  return call(client, "notify", method, params)
end

function compat.is_stopped(client)
  return call(client, "is_stopped")
end

--- The running clients called `name`: those attached to `bufnr` when given, else all.
function compat.clients(name, bufnr)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = bufnr, name = name })
  end
  local found = {}
  local candidates = bufnr and vim.lsp.buf_get_clients(bufnr) or vim.lsp.get_active_clients()
  for _, client in pairs(candidates) do
    if client.name == name then
      table.insert(found, client)
    end
  end
  return found
end

return compat
