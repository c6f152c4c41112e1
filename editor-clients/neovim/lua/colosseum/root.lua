-- The project root of a file: one server runs per root (:help colosseum-root).

local uv = require("colosseum.compat").uv
local strip_comment = require("colosseum.labels").strip_comment

local root = {}

function root.is_dir(path)
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

--- The nearest directory from `dir` upward that holds one of `markers`, trying the markers in
--- their order of preference (a farther first marker beats a nearer second one); else nil.
local function nearest_with(dir, markers)
  for _, marker in ipairs(markers or {}) do
    local d = dir
    while d do
      if exists(d .. "/" .. marker) then
        return d
      end
      d = parent(d)
    end
  end
  return nil
end

-- What the server reads as no root (colosseum/project_files.py): a subfiles child, a standalone figure.
local NOT_ROOT_CLASSES = { subfiles = true, standalone = true }
-- Environments whose body the server reads as text (a \documentclass shown there is no root).
local VERBATIM_ENVIRONMENTS = { "verbatim", "verbatim*", "Verbatim", "lstlisting", "minted", "comment" }

--- The class and the options of the first \documentclass outside comments and verbatim-like
--- environments (it may span lines: `\documentclass[` options `]{amsart}`), else nil.
local function documentclass(lines)
  local code = {}
  for _, line in ipairs(lines) do
    table.insert(code, strip_comment(line))
  end
  local text = table.concat(code, "\n")
  for _, env in ipairs(VERBATIM_ENVIRONMENTS) do
    local name = vim.pesc(env)
    text = text:gsub("\\begin%s*{" .. name .. "}.-\\end%s*{" .. name .. "}", ""):gsub("\\begin%s*{" .. name .. "}.*$", "")
  end
  local after = select(2, text:find("\\documentclass", 1, true))
  if not after then
    return nil
  end
  local rest = text:sub(after + 1)
  local options = rest:match("^%s*%[([^%]]*)%]")
  if options then
    rest = rest:sub(#rest:match("^%s*%b[]") + 1)
  end
  local class = rest:match("^%s*{%s*([^}]-)%s*}")
  if not class then
    return nil
  end
  return class, options
end

local function has_documentclass(lines)
  local class = documentclass(lines)
  return class ~= nil and not NOT_ROOT_CLASSES[class]
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

--- A subfiles child's main file (`\documentclass[../main.tex]{subfiles}`, `.tex` may be left
--- out): its directory, else nil.
local function subfiles_main(lines, dir)
  local class, options = documentclass(lines)
  if class ~= "subfiles" or not options or vim.trim(options) == "" then
    return nil
  end
  local target = vim.trim(options)
  for _, name in ipairs({ target, target .. ".tex" }) do
    local path = name:sub(1, 1) == "/" and name or (dir .. "/" .. name)
    path = vim.fn.fnamemodify(path, ":p")
    if vim.fn.filereadable(path) == 1 then
      return vim.fn.fnamemodify(path, ":h")
    end
  end
  return nil
end

--- A parent directory (at most four up, not past a .git) holding a .tex file with \documentclass.
local function documentclass_above(dir)
  local d = parent(dir)
  local depth = 0
  while d and depth < 4 do
    for _, tex in ipairs(vim.fn.glob(d .. "/*.tex", true, true)) do
      if file_has_documentclass(tex) then
        return d
      end
    end
    if exists(d .. "/.git") then
      return nil
    end
    d = parent(d)
    depth = depth + 1
  end
  return nil
end

--- Project root for a file: the nearest directory upward holding one of config.root_markers
--- (in their order of preference), else the `% !TEX root` target's directory, else a subfiles
--- child's main file's directory, else the directory of the file with \documentclass (not a
--- subfiles child nor a standalone figure: this one, or one in a parent directory), else
--- the nearest directory holding one of config.fallback_root_markers, else the file's directory.
---@param path string absolute file name
---@param lines table|nil the file's lines (read from disk when nil)
---@param config table the plugin's configuration
---@return string
function root.find(path, lines, config)
  local dir = vim.fn.fnamemodify(path, ":p:h")
  local marked = nearest_with(dir, config.root_markers)
  if marked then
    return marked
  end
  if lines == nil then
    local ok, read = pcall(vim.fn.readfile, path, "", 200)
    lines = ok and read or {}
  end
  local from_magic = magic_root(lines, dir)
  if from_magic then
    return from_magic
  end
  local head = vim.list_slice(lines, 1, 200)
  local from_subfiles = subfiles_main(head, dir)
  if from_subfiles then
    return from_subfiles
  end
  if has_documentclass(head) then
    return dir
  end
  return documentclass_above(dir) or nearest_with(dir, config.fallback_root_markers) or dir
end

--- The root for a buffer's file, or nil for an unnamed buffer or a URI (fugitive://, ...).
function root.of_buffer(bufnr, config)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" or name:match("^%a[%w+.-]*://") then
    return nil
  end
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, 200, false)
  return root.find(vim.fn.fnamemodify(name, ":p"), lines, config)
end

return root
