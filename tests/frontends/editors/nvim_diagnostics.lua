-- Headless Neovim as an LSP client of `pdlint server` (run by tests/frontends/test_neovim.py).
-- Attaches the server to the current buffer, waits for its diagnostics and
-- writes one line per diagnostic to $PDLINT_OUT, then quits.
-- Works with Neovim 0.7 (Debian 12: vim.lsp.start_client) and 0.8+ (vim.lsp.start).
local out = os.getenv("PDLINT_OUT")
local config = {
  name = "pdlint",
  cmd = vim.fn.json_decode(os.getenv("PDLINT_CMD")),
  root_dir = os.getenv("PDLINT_ROOT"),
}
local buf = vim.api.nvim_get_current_buf()
vim.bo[buf].filetype = "python"

local client_id
if vim.lsp.start then
  client_id = vim.lsp.start(config)
else
  client_id = vim.lsp.start_client(config)
  vim.lsp.buf_attach_client(buf, client_id)
end

local timeout_ms = tonumber(os.getenv("PDLINT_TIMEOUT_MS") or "60000")
local received = vim.wait(timeout_ms, function()
  return #vim.diagnostic.get(buf) > 0
end, 50)

local lines = {}
if not received then
  lines = { "TIMEOUT" }
end
for _, d in ipairs(vim.diagnostic.get(buf)) do
  local lsp = (d.user_data or {}).lsp or {}
  table.insert(lines, table.concat({
    tostring(d.code or lsp.code),
    tostring(d.lnum + 1),
    tostring(d.col + 1),
    tostring(d.severity),
    tostring(d.source),
    tostring(#(lsp.relatedInformation or {})),
    tostring((lsp.codeDescription or {}).href),
  }, " "))
end
vim.fn.writefile(lines, out)

vim.lsp.stop_client(client_id)
vim.wait(5000, function()
  return vim.lsp.get_client_by_id(client_id) == nil
end, 50)
vim.cmd("qa!")
