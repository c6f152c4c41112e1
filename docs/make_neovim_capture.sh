#!/usr/bin/env bash
# Terminal capture of Neovim with the Colosseum plugin, for the README.
#
#   docs/make_neovim_capture.sh          # writes docs/neovim-capture.txt and docs/neovim-capture.png
#
# Opens example-project/sections/main-result.tex in Neovim (the plugin from editor-clients/neovim,
# `require("colosseum").setup{ cmd = { <python>, "-m", "colosseum", "serve" } }`, no user config)
# inside a detached 120x40 tmux session on its own socket, waits until the server's diagnostics
# are shown (virtual text), runs `:lua vim.lsp.buf.document_symbol()` (the outline, into the
# location list) and `:lopen`, then captures the pane:
#   docs/neovim-capture.txt   plain text   (tmux capture-pane -p)
#   docs/neovim-capture.png   rendered from the ANSI capture (tmux capture-pane -p -e) with Pillow
#                             and DejaVu Sans Mono; skipped with a message when they are missing.
#
# Needs: nvim (0.7 or later), tmux (apt-get install -y tmux), a Python >= 3.11 that can import
# pygls/lsprotocol (set PYTHON=...; default python3). The server runs from this checkout
# (PYTHONPATH=<repo>:<repo>/server). Nothing is written outside docs/ and a temporary directory.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="$(command -v "${PYTHON:-python3}")"
OUT_TXT="$REPO/docs/neovim-capture.txt"
OUT_PNG="$REPO/docs/neovim-capture.png"
FILE="sections/main-result.tex"
COLS=120
ROWS=40
TIMEOUT=60

command -v nvim >/dev/null || { echo "nvim not found (apt-get install -y neovim)" >&2; exit 1; }
command -v tmux >/dev/null || { echo "tmux not found (apt-get install -y tmux)" >&2; exit 1; }
"$PY" -c "import pygls, lsprotocol" 2>/dev/null || { echo "$PY cannot import pygls (set PYTHON=...)" >&2; exit 1; }

WORK="$(mktemp -d)"
SOCK="colosseum-capture-$$"   # a tmux server of our own: never touches the user's sessions
cleanup() {
  tmux -L "$SOCK" kill-server 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# ---- Neovim configuration: only the plugin, diagnostics as virtual text --------------------------
cat >"$WORK/init.lua" <<'LUA'
local repo = vim.env.COLOSSEUM_REPO
vim.opt.runtimepath:prepend(repo .. "/editor-clients/neovim")
vim.opt.swapfile = false
vim.opt.shadafile = "NONE"
vim.opt.more = false
vim.opt.number = true
vim.opt.signcolumn = "yes"
vim.opt.laststatus = 2
vim.opt.background = "dark"
vim.g.tex_flavor = "latex"
vim.cmd("filetype plugin indent on")
vim.cmd("syntax on")
vim.diagnostic.config({ virtual_text = true, signs = true, underline = true, severity_sort = true })
-- The outline goes to the location list (Neovim 0.7's default is the quickfix list).
if vim.fn.has("nvim-0.10") == 0 then
  vim.lsp.handlers["textDocument/documentSymbol"] =
    vim.lsp.with(vim.lsp.handlers["textDocument/documentSymbol"], { loclist = true })
end
require("colosseum").setup({
  cmd = { vim.env.COLOSSEUM_PYTHON, "-m", "colosseum", "serve" },
  cmd_env = { PYTHONPATH = repo .. ":" .. repo .. "/server" },
})
vim.opt.statusline = "%f %h%m%r%=%{v:lua.require'colosseum'.statusline()}   %l:%c "
-- Tell the script when the first diagnostics are on screen.
vim.api.nvim_create_autocmd("DiagnosticChanged", {
  callback = function()
    if #vim.diagnostic.get(0) > 0 then
      vim.fn.writefile({ tostring(#vim.diagnostic.get(0)) }, vim.env.COLOSSEUM_MARKER)
    end
  end,
})
LUA

wait_for() {  # wait_for DESCRIPTION COMMAND...: poll until COMMAND succeeds
  local what="$1"; shift
  local deadline=$((SECONDS + TIMEOUT))
  until "$@"; do
    if ((SECONDS > deadline)); then
      echo "timed out waiting for $what; the pane shows:" >&2
      tmux -L "$SOCK" capture-pane -p -t cap >&2 || true
      exit 1
    fi
    sleep 0.2
  done
}
pane_has() { tmux -L "$SOCK" capture-pane -p -t cap | grep -qF "$1"; }

tmux -L "$SOCK" -f /dev/null new-session -d -s cap -x "$COLS" -y "$ROWS" \
  -c "$REPO/example-project" \
  "env TERM=tmux-256color COLOSSEUM_REPO='$REPO' COLOSSEUM_PYTHON='$PY' COLOSSEUM_MARKER='$WORK/diagnostics' \
   nvim -u '$WORK/init.lua' '$FILE'"
tmux -L "$SOCK" set-option -t cap status off >/dev/null

# 1. diagnostics inline
wait_for "diagnostics" test -s "$WORK/diagnostics"
sleep 2   # let the code lenses arrive and the screen settle
# 2. the outline into the location list, and :lopen
tmux -L "$SOCK" send-keys -t cap ":lua vim.lsp.buf.document_symbol()" Enter
wait_for "the outline" pane_has "[Location List]"
tmux -L "$SOCK" send-keys -t cap ":lopen" Enter
sleep 1
# 3. capture
tmux -L "$SOCK" capture-pane -p -t cap >"$OUT_TXT"
tmux -L "$SOCK" capture-pane -p -e -t cap >"$WORK/capture.ansi"
echo "wrote $OUT_TXT ($(grep -c '' "$OUT_TXT") lines)"

# ---- PNG: render the ANSI capture with Pillow ------------------------------------------------------
cat >"$WORK/render.py" <<'PY'
"""Render tmux's ANSI capture (SGR colours, 16/256/true colour) as a PNG, one font cell per column."""
import re
import sys
import unicodedata

from PIL import Image, ImageDraw, ImageFont

src, out, cols, rows = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
FONTS = "/usr/share/fonts/truetype/dejavu/"
SIZE = 15
regular = ImageFont.truetype(FONTS + "DejaVuSansMono.ttf", SIZE)
bold = ImageFont.truetype(FONTS + "DejaVuSansMono-Bold.ttf", SIZE)
fallback = ImageFont.truetype(FONTS + "DejaVuSans.ttf", SIZE)
CW = round(regular.getlength("M"))
CH = round(SIZE * 1.3)
DEFAULT_FG, DEFAULT_BG = (0xD0, 0xD0, 0xD0), (0x1C, 0x1C, 0x1C)

BASE16 = [(0x00, 0x00, 0x00), (0xCD, 0x31, 0x31), (0x0D, 0xBC, 0x79), (0xE5, 0xE5, 0x10), (0x24, 0x72, 0xC8),
          (0xBC, 0x3F, 0xBC), (0x11, 0xA8, 0xCD), (0xE5, 0xE5, 0xE5), (0x66, 0x66, 0x66), (0xF1, 0x4C, 0x4C),
          (0x23, 0xD1, 0x8B), (0xF5, 0xF5, 0x43), (0x3B, 0x8E, 0xEA), (0xD6, 0x70, 0xD6), (0x29, 0xB8, 0xDB),
          (0xFF, 0xFF, 0xFF)]


def xterm(n):
    if n < 16:
        return BASE16[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return steps[n // 36], steps[(n // 6) % 6], steps[n % 6]
    v = 8 + 10 * (n - 232)
    return v, v, v


_glyphs = {}


def glyph(ch, font):
    """The rendered bitmap of one character (to spot characters the font does not have)."""
    key = (ch, id(font))
    if key not in _glyphs:
        im = Image.new("L", (3 * CW, CH))
        ImageDraw.Draw(im).text((0, 0), ch, font=font, fill=255)
        _glyphs[key] = im.tobytes()
    return _glyphs[key]


def font_for(ch, is_bold):
    f = bold if is_bold else regular
    if ord(ch) > 0x2000 and glyph(ch, regular) == glyph("\U0010FFFD", regular):
        return fallback  # not in DejaVu Sans Mono (e.g. some symbols): DejaVu Sans has more
    return f


def parse(line):
    cells, st = [], {"fg": None, "bg": None, "bold": False, "rev": False, "ul": False, "dim": False}
    pos = 0
    for m in re.finditer(r"\x1b\[([0-9;:]*)([A-Za-z])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)", line):
        for ch in line[pos:m.start()]:
            cells.append((ch, dict(st)))
        pos = m.end()
        if m.group(2) != "m":
            continue
        codes = [int(c) if c else 0 for c in re.split("[;:]", m.group(1))] or [0]
        i = 0
        while i < len(codes):
            c = codes[i]
            if c == 0:
                st.update(fg=None, bg=None, bold=False, rev=False, ul=False, dim=False)
            elif c == 1:
                st["bold"] = True
            elif c == 2:
                st["dim"] = True
            elif c == 4:
                st["ul"] = True
            elif c == 7:
                st["rev"] = True
            elif c == 22:
                st["bold"] = st["dim"] = False
            elif c == 24:
                st["ul"] = False
            elif c == 27:
                st["rev"] = False
            elif 30 <= c <= 37:
                st["fg"] = xterm(c - 30)
            elif 90 <= c <= 97:
                st["fg"] = xterm(c - 90 + 8)
            elif 40 <= c <= 47:
                st["bg"] = xterm(c - 40)
            elif 100 <= c <= 107:
                st["bg"] = xterm(c - 100 + 8)
            elif c == 39:
                st["fg"] = None
            elif c == 49:
                st["bg"] = None
            elif c in (38, 48) and i + 1 < len(codes):
                key = "fg" if c == 38 else "bg"
                if codes[i + 1] == 5 and i + 2 < len(codes):
                    st[key] = xterm(codes[i + 2])
                    i += 2
                elif codes[i + 1] == 2 and i + 4 < len(codes):
                    st[key] = tuple(codes[i + 2:i + 5])
                    i += 4
            i += 1
    for ch in line[pos:]:
        cells.append((ch, dict(st)))
    return cells


lines = open(src, encoding="utf-8", errors="replace").read().split("\n")[:rows]
img = Image.new("RGB", (cols * CW + 16, rows * CH + 16), DEFAULT_BG)
draw = ImageDraw.Draw(img)
for y, line in enumerate(lines):
    x = 0
    for ch, st in parse(line):
        width = 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
        if unicodedata.combining(ch) or x >= cols:
            continue
        fg, bg = st["fg"] or DEFAULT_FG, st["bg"] or DEFAULT_BG
        if st["rev"]:
            fg, bg = bg, fg
        if st["dim"]:
            fg = tuple(int(v * 0.6 + b * 0.4) for v, b in zip(fg, bg))
        px, py = 8 + x * CW, 8 + y * CH
        draw.rectangle([px, py, px + width * CW - 1, py + CH - 1], fill=bg)
        if ch != " ":
            draw.text((px, py + 2), ch, font=font_for(ch, st["bold"]), fill=fg)
        if st["ul"]:
            draw.line([px, py + CH - 2, px + width * CW - 1, py + CH - 2], fill=fg)
        x += width
img.save(out)
print(f"wrote {out} ({img.width}x{img.height})")
PY
if "$PY" -c "import PIL" 2>/dev/null && [ -f /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf ]; then
  "$PY" "$WORK/render.py" "$WORK/capture.ansi" "$OUT_PNG" "$COLS" "$ROWS"
else
  echo "PNG skipped: needs Pillow (pip install pillow) and fonts-dejavu-core" >&2
fi
