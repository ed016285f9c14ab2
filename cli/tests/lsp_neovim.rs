//! `mcpr lsp` in a real editor: headless Neovim (Debian's package) with its built-in LSP
//! client, started by a Lua script on files of the compiler corpus. It checks that the
//! corpus' expected diagnostics appear at their lines, that Neovim's own incremental edits
//! (after an emoji) are applied, that go-to-definition on `Use flow` jumps to the `Flow:`
//! line, and that formatting applies `mcpr fmt`'s layout in the buffer. Without `nvim` the
//! test is skipped, except where `.ci/run` requires it (`MCPR_REQUIRE_EDITORS=1`, or
//! `CI=true`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn required() -> bool {
    std::env::var("MCPR_REQUIRE_EDITORS").is_ok_and(|v| v == "1")
        || std::env::var("CI").is_ok_and(|v| v == "true")
}

fn nvim() -> Option<PathBuf> {
    let found = Command::new("nvim")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        assert!(
            !required(),
            "Neovim is required but `nvim` is not installed (.ci/run installs the Debian package)"
        );
        eprintln!("skipped: Neovim is not installed (apt-get install neovim); CI runs it");
        return None;
    }
    Some(PathBuf::from("nvim"))
}

fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../conformance-tests/compiler")
        .join(rel)
}

/// The `# expect: CODE LINE:COL` lines of a corpus case, as (code, line).
fn expected(text: &str) -> Vec<(String, u32)> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("# expect:"))
        .filter_map(|rest| {
            let mut parts = rest.split_whitespace();
            let code = parts.next()?.to_string();
            let line = parts.next()?.split(':').next()?.parse().ok()?;
            Some((code, line))
        })
        .collect()
}

/// The Lua script: opens each file, attaches the server, and writes what Neovim shows to
/// `out`, one fact per line.
const SCRIPT: &str = r#"
local mcpr, out_path = MCPR, OUT
local out = {}
local function log(s) table.insert(out, s) end
local function attach(path)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  local id = vim.lsp.start_client({ name = 'mcpr', cmd = { mcpr, 'lsp' }, root_dir = vim.fn.fnamemodify(path, ':h') })
  vim.lsp.buf_attach_client(buf, id)
  vim.wait(20000, function()
    local c = vim.lsp.get_client_by_id(id)
    return c ~= nil and c.initialized
  end, 20)
  return buf, id
end
local function diags(buf, tag, want)
  vim.wait(20000, function() return #vim.diagnostic.get(buf) >= want end, 20)
  if want == 0 then vim.wait(1500, function() return #vim.diagnostic.get(buf) > 0 end, 50) end
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or '?'
    log(tag .. ' ' .. code .. ' ' .. (d.lnum + 1))
  end
  log(tag .. ' count ' .. #vim.diagnostic.get(buf))
end
for i, case in ipairs(CASES) do
  local buf = attach(case.path)
  diags(buf, 'case' .. (i - 1), case.want)
end
-- Go to definition on `Use flow "…"` lines of the valid file.
local buf = attach(VALID)
diags(buf, 'valid', 0)
for _, line in ipairs(USES) do
  vim.api.nvim_win_set_cursor(0, { line, 13 })
  vim.lsp.buf.definition()
  vim.wait(10000, function() return vim.api.nvim_win_get_cursor(0)[1] ~= line end, 20)
  log('definition ' .. line .. ' ' .. vim.api.nvim_win_get_cursor(0)[1])
end
-- Neovim's own incremental edit after an emoji: a misspelt keyword on line 1 of a test.
vim.api.nvim_buf_set_lines(buf, 0, 0, false, { '# 😀 emoji first' })
vim.api.nvim_buf_set_text(buf, EDIT_LINE, 2, EDIT_LINE, 6, { 'Cal' })
vim.wait(10000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
for _, d in ipairs(vim.diagnostic.get(buf)) do log('edited ' .. (d.lnum + 1) .. ' ' .. d.col) end
-- Formatting: Neovim applies the server's edits to a messy file.
local messy = attach(MESSY)
if vim.lsp.buf.format then
  vim.lsp.buf.format({ timeout_ms = 10000 })
else
  vim.lsp.buf.formatting_sync(nil, 10000)
end
vim.fn.writefile(vim.api.nvim_buf_get_lines(messy, 0, -1, false), FORMATTED)
log('formatted')
vim.lsp.stop_client(vim.lsp.get_active_clients())
vim.wait(5000, function() return #vim.lsp.get_active_clients() == 0 end, 20)
local f = io.open(out_path, 'w')
f:write(table.concat(out, '\n') .. '\n')
f:close()
vim.cmd('qa!')
"#;

fn lua_string(s: &str) -> String {
    format!("{s:?}")
}

#[test]
fn neovim_shows_diagnostics_jumps_to_flows_and_formats() {
    let Some(nvim) = nvim() else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    let cases = [
        "invalid/105-bad-reference.mcpr",
        "invalid/204-unknown-statement.mcpr",
    ];
    let mut lua_cases = Vec::new();
    let mut wants = Vec::new();
    for (i, rel) in cases.iter().enumerate() {
        let text = std::fs::read_to_string(corpus(rel)).expect("corpus case");
        let path = dir.path().join(format!("case{i}.mcpr"));
        std::fs::write(&path, &text).expect("write");
        let want = expected(&text);
        lua_cases.push(format!(
            "{{ path = {}, want = {} }}",
            lua_string(&path.to_string_lossy()),
            want.len()
        ));
        wants.push(want);
    }
    let valid_text =
        std::fs::read_to_string(corpus("valid/flows-and-data.mcpr")).expect("corpus case");
    let valid = dir.path().join("flows-and-data.mcpr");
    std::fs::write(&valid, &valid_text).expect("write");
    // Every `Use flow "NAME"` line and the line of its `Flow:` (1-based).
    let lines: Vec<&str> = valid_text.lines().collect();
    let flow_line = |name: &str| {
        lines.iter().position(|l| {
            l.starts_with("Flow:")
                && (l.contains(&format!("\"{name}\"")) || l.contains(&format!("'{name}'")))
        })
    };
    let uses: Vec<(usize, usize)> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            let name = l.trim().strip_prefix("Use flow \"")?.split('"').next()?;
            Some((i + 1, flow_line(name)? + 1))
        })
        .collect();
    assert!(uses.len() >= 2, "the valid case uses flows: {uses:?}");
    // A step line of a test to misspell after the inserted first line (0-based, shifted).
    let step = lines
        .iter()
        .position(|l| l.starts_with("  Call tool") && !l.contains("😀"))
        .expect("a Call tool line");
    let messy_text = "MCP Test 1\nServer:   node server.js\n\n\nTest:   \"😀 spaced\"\n  call tool  \"add\"   with:\n      a:    1\n";
    let messy = dir.path().join("messy.mcpr");
    std::fs::write(&messy, messy_text).expect("write");
    let formatted = dir.path().join("formatted.mcpr");
    let out = dir.path().join("out.txt");
    let script = dir.path().join("test.lua");
    let uses_lua: Vec<String> = uses.iter().map(|(u, _)| u.to_string()).collect();
    let header = format!(
        "MCPR = {}\nOUT = {}\nCASES = {{ {} }}\nVALID = {}\nUSES = {{ {} }}\nEDIT_LINE = {}\nMESSY = {}\nFORMATTED = {}\n",
        lua_string(env!("CARGO_BIN_EXE_mcpr")),
        lua_string(&out.to_string_lossy()),
        lua_cases.join(", "),
        lua_string(&valid.to_string_lossy()),
        uses_lua.join(", "),
        step + 1,
        lua_string(&messy.to_string_lossy()),
        lua_string(&formatted.to_string_lossy()),
    );
    std::fs::write(&script, format!("{header}{SCRIPT}")).expect("write script");
    let mut child = Command::new(nvim)
        .args(["--headless", "--clean", "-n", "-i", "NONE", "-c"])
        .arg(format!("luafile {}", script.display()))
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nvim starts");
    let until = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if Instant::now() > until {
            let _ = child.kill();
            let _ = child.wait();
            panic!("Neovim did not finish the script in time");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let log = std::fs::read_to_string(&out).unwrap_or_else(|_| {
        let mut err = String::new();
        if let Some(mut e) = child.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut e, &mut err);
        }
        panic!("Neovim wrote no results ({status}): {err}")
    });
    for (i, want) in wants.iter().enumerate() {
        let mut got: Vec<(String, u32)> = log
            .lines()
            .filter_map(|l| l.strip_prefix(&format!("case{i} ")))
            .filter(|l| !l.starts_with("count"))
            .filter_map(|l| {
                let (code, line) = l.split_once(' ')?;
                Some((code.to_string(), line.parse().ok()?))
            })
            .collect();
        got.sort();
        let mut want = want.clone();
        want.sort();
        assert_eq!(got, want, "{}\n{log}", cases[i]);
    }
    assert!(
        log.contains("valid count 0"),
        "the valid case is clean in Neovim:\n{log}"
    );
    for (use_line, flow) in &uses {
        assert!(
            log.contains(&format!("definition {use_line} {flow}\n")),
            "`Use flow` on line {use_line} jumps to line {flow}:\n{log}"
        );
    }
    // Formatting applied in the buffer: the layout of `mcpr fmt`.
    let want = mcpr_compiler::fmt::format_source(&messy.to_string_lossy(), messy_text)
        .expect("the messy file formats");
    let got = std::fs::read_to_string(&formatted).expect("Neovim wrote the formatted buffer");
    assert_ne!(want, messy_text);
    assert_eq!(got, want, "{log}");
    // The misspelt step, one line lower after the inserted comment, column 2.
    assert!(
        log.contains(&format!("edited {} 2\n", step + 2)),
        "the edited line has its diagnostic:\n{log}"
    );
}
