-- Labels in LaTeX source: the one under the cursor (a label/reference argument, else the
-- enclosing claim's or section's), and the ones a buffer defines (for completion).

local labels = {}

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

--- `line` without its comment (a `%` not escaped as `\%`).
function labels.strip_comment(line)
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

local strip_comment = labels.strip_comment

--- The macros whose argument is a label: the built-in ones and the settings' extra ones.
local function label_commands(settings)
  local set = {}
  for _, c in ipairs(LABEL_COMMANDS) do
    set[c] = true
  end
  settings = settings or {}
  for _, key in ipairs({ "labelDefinitionCommands", "labelReferenceCommands" }) do
    for _, c in ipairs(settings[key] or {}) do
      set[(c:gsub("^\\", ""))] = true
    end
  end
  return set
end

--- The label in the brace argument of a label/reference macro that holds byte column `col`
--- (1-based) of `line`; for `\cref{a,b}` the item under the cursor. `settings` may name more
--- macros (labelDefinitionCommands, labelReferenceCommands).
function labels.in_argument(line, col, settings)
  local commands = label_commands(settings)
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

--- The first \label from line `lnum`, byte column `col` on, within `window` lines; nil when an
--- environment begins or ends before it.
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
function labels.enclosing(lines, lnum, col)
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
function labels.under_cursor(settings)
  local cursor = vim.api.nvim_win_get_cursor(0)
  local lnum, col = cursor[1], cursor[2] + 1
  local bufnr = vim.api.nvim_get_current_buf()
  local line = vim.api.nvim_buf_get_lines(bufnr, lnum - 1, lnum, false)[1] or ""
  local label = labels.in_argument(line, col, settings)
  if label then
    return label
  end
  local first = math.max(0, lnum - 501)
  local lines = vim.api.nvim_buf_get_lines(bufnr, first, lnum + 10, false)
  return labels.enclosing(lines, lnum - first, col)
end

--- The labels of the `\label{...}` commands in `lines` (comments left out), in order.
function labels.defined(lines)
  local found = {}
  for _, line in ipairs(lines) do
    for label in strip_comment(line):gmatch("\\label%s*{([^{}]+)}") do
      table.insert(found, vim.trim(label))
    end
  end
  return found
end

return labels
