//! The closing part of each subcommand's long help (`mcpr CMD --help`): short, real
//! examples, and the defaults a flag's own line cannot show. `run`'s is `RUN_HELP` beside
//! its arguments. A test (`cli/tests/cli.rs`) keeps an `Examples:` section in every one.

pub const CHECK: &str = "\
Examples:
  mcpr check tests/                    every suite below tests/, each problem located
  mcpr check suite.mcpr --format short one line per problem
  mcpr check tests/ --format github    GitHub annotations
  mcpr check tests/ --fix              apply the safe mechanical fixes, then check again
  mcpr check tests/ --fix --unsafe-fixes
                                       also rename to the closest declared name
  mcpr check tests/ --data             also read local data files and check their values

Defaults: human output in colour on a terminal; files up to 16MiB (--max-file-size).";

pub const EXPLAIN: &str = "\
Examples:
  mcpr explain MCPLANG102        a compile diagnostic
  mcpr explain 102               the same, by its number
  mcpr explain MCP-TIMEOUT-001   a run-time code
  mcpr explain MCP012            a lint rule
  mcpr explain --list            every code with its kind and title

Takes no options but --list.";

pub const COMPILE: &str = "\
Examples:
  mcpr compile suite.mcpr                       the located syntax tree (--emit ast)
  mcpr compile suite.mcpr --emit ir > ir.json   the Suite IR; `mcpr run ir.json` runs it

Defaults: --emit ast; files up to 16MiB (--max-file-size).";

/// What every command that reaches one server (`tools`, `call`, `ping`, `lint`, …) defaults to.
macro_rules! adhoc_defaults {
    () => {
        "Defaults of the connection: the server of mcpr.toml (`server = \"…\"` or `url = \"…\"`)
when neither `-- CMD` nor --url is given; a 30s timeout for the handshake and for each
request (--timeout 500ms, 30s, 2m or plain seconds); the protocol version probed
(--protocol); OAuth tokens cached (--no-token-cache)."
    };
}

pub const TOOLS: &str = concat!(
    "\
Examples:
  mcpr tools -- npx -y @modelcontextprotocol/server-everything
  mcpr tools -- python3 server.py > tools.json
  mcpr tools --url http://localhost:8000/mcp --header \"Authorization: Bearer $TOKEN\"
  mcpr tools --url https://example.com/mcp --oauth

",
    adhoc_defaults!()
);

pub const CALL: &str = concat!(
    "\
Examples:
  mcpr call add '{\"a\": 1, \"b\": 2}' -- python3 server.py
  mcpr call list_allowed_directories -- npx -y @modelcontextprotocol/server-filesystem .
  mcpr call search '{\"q\": \"mcp\"}' --url http://localhost:8000/mcp --timeout 60

Defaults: the arguments are {}.
",
    adhoc_defaults!()
);

pub const PING: &str = concat!(
    "\
Examples:
  mcpr ping -- npx -y @modelcontextprotocol/server-everything
  mcpr ping --url http://localhost:8000/mcp --protocol 2025-11-25

",
    adhoc_defaults!()
);

pub const AUTH_CHECK: &str = "\
Examples:
  mcpr auth-check https://example.com/mcp
  mcpr auth-check https://example.com/mcp --oauth --oauth-setting clientId=my-client
  mcpr auth-check http://localhost:8000/mcp --json > auth.json

Defaults: probes with protocol 2025-11-25 and a 30 s timeout per request; no OAuth flow
unless --oauth or --oauth-setting; tokens cached (--no-token-cache).";

pub const PARITY: &str = "\
Examples:
  mcpr parity parity.mcpr                       each test on every compare target
  mcpr parity parity.mcpr --test 'search*'      only some tests (and what they depend on)
  mcpr parity parity.mcpr --markdown parity.md --json parity.json

Defaults: as many tests at once per target as there are cores (--jobs); the table on the
terminal only.";

pub const SCHEMA: &str = "\
Examples:
  mcpr schema > suite.schema.json

Takes no options.";

pub const CONVERT: &str = "\
Examples:
  mcpr convert suite.mcpr                   to YAML on standard output
  mcpr convert suite.yaml -o suite.mcpr     to .mcpr
  mcpr convert suite.mcpr --to json -o suite.json

Defaults: --to yaml for a .mcpr file, mcpr for anything else; standard output; files up to
16MiB (--max-file-size).";

pub const LINT: &str = concat!(
    "\
Examples:
  mcpr lint -- npx -y @modelcontextprotocol/server-everything
  mcpr lint --fail-on warning --ignore MCP005,MCP015 -- python3 server.py
  mcpr lint --format github --url http://localhost:8000/mcp
  mcpr lint --rules

Defaults: mcpr.toml's [lint] fail-on, else errors only (--fail-on error); human output;
the rules of mcpr.toml's [lint] ignore, and no other, ignored.
",
    adhoc_defaults!()
);

pub const CONFORMANCE: &str = "\
Examples:
  mcpr conformance -- npx -y @modelcontextprotocol/server-everything
  mcpr conformance --protocol 2025-11-25 --suite tools -- python3 server.py
  mcpr conformance --baseline known.txt --junit conformance.xml --url http://localhost:8000/mcp
  mcpr conformance --list

Defaults: every protocol era the server speaks; every standard library; a 10 s timeout per
request; human output.";

pub const SNAPSHOT: &str = concat!(
    "\
Examples:
  mcpr snapshot -o tools.json -- python3 server.py
  mcpr snapshot -o tools.json --url http://localhost:8000/mcp
  (then, in CI: mcpr diff tools.json -- python3 server.py)

Defaults: -o is mcpr.toml's [snapshot] file when not given.
",
    adhoc_defaults!()
);

pub const DIFF: &str = concat!(
    "\
Examples:
  mcpr diff tools.json -- python3 server.py             fails on a breaking change
  mcpr diff tools.json --strict -- python3 server.py    fails on any change
  mcpr diff tools.json --allow-breaking --format github --url http://localhost:8000/mcp

Defaults: FILE is mcpr.toml's [snapshot] file when not given; fails on breaking changes
only (every change with [snapshot] strict = true); human output.
",
    adhoc_defaults!()
);

pub const INIT: &str = concat!(
    "\
Examples:
  mcpr init -o tests/server.mcpr -- python3 server.py
  mcpr init -- npx -y @modelcontextprotocol/server-memory > memory.mcpr
  mcpr init -o tests/remote.mcpr --force --url http://localhost:8000/mcp

Defaults: the suite on standard output; an existing file is kept unless --force.
",
    adhoc_defaults!()
);

pub const REPORT: &str = "\
Examples:
  mcpr report merge shard-*.json > report.json
  mcpr report merge shard-*.json --junit junit.xml --html report.html --github

Takes no options of its own: `mcpr report merge --help` has them.";

pub const MERGE: &str = "\
Examples:
  mcpr report merge shard-*.json > report.json
  mcpr report merge shard-1.json shard-2.json shard-3.json --junit junit.xml --html report.html
  mcpr report merge shard-*.json --github      annotations and the job summary

Defaults: the merged JSON report on standard output when no other output is asked for;
colour on a terminal.";

pub const COMPLETIONS: &str = "\
Examples:
  mcpr completions bash > ~/.local/share/bash-completion/completions/mcpr
  mcpr completions zsh > \"${fpath[1]}/_mcpr\"
  mcpr completions fish > ~/.config/fish/completions/mcpr.fish

Takes no options.";

pub const FMT: &str = "\
Examples:
  mcpr fmt tests/               lay out every .mcpr file below tests/, in place
  mcpr fmt --check tests/       list the files that would change; exit 1 if any (for CI)
  mcpr fmt --diff suite.mcpr    print what would change
  mcpr fmt - < suite.mcpr       standard input to standard output (for editors)

Defaults: files are rewritten in place.";

pub const LSP: &str = "\
Examples:
  mcpr lsp      started by an editor, which talks to it on stdin and stdout

docs/editors.md has the settings of VS Code (the .vsix of each release), Neovim and Helix.
Takes no options.";

pub const DRIVER: &str = "\
Examples:
  mcpr driver   started by the Python and Node packages; by hand, type JSON lines such as
                {\"id\":0,\"method\":\"hello\",\"params\":{\"protocol\":1,\"client\":\"me\"}}

docs/driver.md has the methods. Takes no options.";

pub const RECORD: &str = "\
Examples:
  mcpr record -o draft.mcpr -- python3 server.py
                   give this whole command line to the client as its server's command
  mcpr record -o draft.mcpr --url http://localhost:8000/mcp
                   point the client at the URL printed on stderr
  mcpr record -o draft.mcpr --url https://example.com/mcp --listen 127.0.0.1:9000 --until signal --idle 2m

Defaults: ends when the client ends its last session (--until delete); listens on a free
port of 127.0.0.1; a 1000 ms shutdown grace (stdio).";

pub const FUZZ: &str = concat!(
    "\
Examples:
  mcpr fuzz -- python3 server.py
  mcpr fuzz --tool search --cases 500 --seed 42 -- python3 server.py
  mcpr fuzz -o fuzz-findings --url http://localhost:8000/mcp

Defaults: every tool; the seed from the clock (printed, to run the same inputs again);
regression tests written to mcpr-fuzz/.
",
    adhoc_defaults!()
);
