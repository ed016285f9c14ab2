//! Command-line arguments (clap).

use clap::{Args, Parser, Subcommand, ValueEnum};
use mcpr_runtime::schedule::keyword::Keyword;
use std::path::PathBuf;
use std::time::Duration;

mod examples;

/// The top-level help's closing part: first steps, exit codes, where the settings are.
const TOP_HELP: &str = "\
Examples:
  mcpr check tests/                       every problem of every suite, located
  mcpr run tests/ --junit target/junit.xml --html target/mcpr.html
  mcpr run tests/ --shard 1/3 --json shard-1.json; mcpr report merge shard-*.json
  mcpr ping -- npx -y @modelcontextprotocol/server-everything
  mcpr explain MCP-TIMEOUT-001

Exit codes: 0 passed, 1 a test failed or was blocked, 2 usage, compile or configuration
error, 3 a server, transport or internal failure, 130 interrupted.

`mcpr run --help` lists the MCPR_* variables and the mcpr.toml settings; NO_COLOR turns
colour off everywhere.";

/// mcpr: check and run test suites for MCP servers.
#[derive(Debug, Parser)]
#[command(name = "mcpr", version, about, propagate_version = true, after_help = TOP_HELP)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check test files and report every problem with its location.
    #[command(after_long_help = examples::CHECK)]
    Check(CheckArgs),
    /// Print the documentation page of a diagnostic code.
    #[command(after_long_help = examples::EXPLAIN)]
    Explain(ExplainArgs),
    /// Compile a file and print an intermediate form as JSON.
    #[command(after_long_help = examples::COMPILE)]
    Compile(CompileArgs),
    /// List a server's tools as JSON: `mcpr tools -- CMD ARGS…`.
    #[command(after_long_help = examples::TOOLS)]
    Tools(ToolsArgs),
    /// Call one tool: `mcpr call TOOL '{"a": 1}' -- CMD ARGS…`.
    #[command(after_long_help = examples::CALL)]
    Call(CallArgs),
    /// Start a server, shake hands and ping it, with timings.
    #[command(after_long_help = examples::PING)]
    Ping(PingArgs),
    /// How a protected HTTP server behaves: its challenge, metadata and scopes, and with
    /// OAuth settings a whole flow (docs/oauth.md).
    #[command(after_long_help = examples::AUTH_CHECK)]
    AuthCheck(AuthCheckArgs),
    /// Run test suites (`.mcpr`, YAML/JSON suites, Suite IR `.json`) against their servers.
    Run(Box<RunArgs>),
    /// Run a suite against each of its compare targets and report where they differ.
    #[command(after_long_help = examples::PARITY)]
    Parity(ParityArgs),
    /// Print the JSON Schema of YAML/JSON suites and of the Suite IR.
    #[command(after_long_help = examples::SCHEMA)]
    Schema,
    /// Convert a suite between `.mcpr`, YAML and JSON (canonical, deterministic output).
    #[command(after_long_help = examples::CONVERT)]
    Convert(ConvertArgs),
    /// Check a server's tools, resources and prompts against the lint rules (MCP001…).
    #[command(after_long_help = examples::LINT)]
    Lint(LintArgs),
    /// Run the standard flow library against a server in every protocol era it speaks.
    #[command(after_long_help = examples::CONFORMANCE)]
    Conformance(ConformanceArgs),
    /// Write a server's tools, resources, templates and prompts to a snapshot file.
    #[command(after_long_help = examples::SNAPSHOT)]
    Snapshot(SnapshotArgs),
    /// Compare a server with a snapshot file and classify every change.
    #[command(after_long_help = examples::DIFF)]
    Diff(DiffArgs),
    /// Write a starter `.mcpr` suite from a live server (calls every tool once).
    #[command(after_long_help = examples::INIT)]
    Init(InitArgs),
    /// Work with run reports: `mcpr report merge` combines the JSON reports of shards.
    #[command(after_long_help = examples::REPORT)]
    Report(ReportArgs),
    /// Print a shell completion script: `mcpr completions bash > ~/.local/share/bash-completion/completions/mcpr`.
    #[command(after_long_help = examples::COMPLETIONS)]
    Completions(CompletionsArgs),
    /// Lay out `.mcpr` files canonically (docs/fmt.md): in place, `--check`, `--diff`, or `-`
    /// for standard input to standard output.
    #[command(after_long_help = examples::FMT)]
    Fmt(FmtArgs),
    /// Serve the language server protocol on stdin and stdout, for editors (docs/lsp.md).
    #[command(after_long_help = examples::LSP)]
    Lsp,
    /// Serve mcpr's engine to a program in another language: JSON lines on stdin and
    /// stdout (docs/driver.md). The Python and Node packages run it for you.
    #[command(after_long_help = examples::DRIVER)]
    Driver,
    /// Record a client's session with a server as a draft suite: the client starts
    /// `mcpr record -o draft.mcpr -- CMD ARGS…` as its server, or talks Streamable HTTP to
    /// `mcpr record -o draft.mcpr --url URL`, which forwards to URL (docs/record.md).
    #[command(after_long_help = examples::RECORD)]
    Record(RecordArgs),
    /// Call each tool with inputs made from its inputSchema (valid, boundary, invalid) and
    /// report crashes, hangs and protocol violations as regression tests (docs/fuzz.md).
    #[command(after_long_help = examples::FUZZ)]
    Fuzz(FuzzArgs),
}

#[derive(Debug, Args)]
pub struct FmtArgs {
    /// Files or folders (every `.mcpr` file below a folder); `-` reads standard input and
    /// writes the formatted text to standard output.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Write nothing; list the files that would change and exit 1 if there are any.
    #[arg(long)]
    pub check: bool,
    /// Write nothing; print a unified diff of each change and exit 1 if there are any.
    #[arg(long)]
    pub diff: bool,
}

/// A shell for `mcpr completions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ShellArg {
    /// Bash.
    Bash,
    /// Zsh.
    Zsh,
    /// Fish.
    Fish,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    pub shell: ShellArg,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    #[command(subcommand)]
    pub command: ReportCommand,
}

#[derive(Debug, Subcommand)]
pub enum ReportCommand {
    /// Combine the JSON reports of `mcpr run --shard K/N` runs into the report of the whole
    /// run, checking that the shards cover each suite exactly once.
    #[command(after_long_help = examples::MERGE)]
    Merge(MergeArgs),
}

/// `mcpr report merge`: exit 0 every test passed, 1 a test failed or was blocked, 2 the
/// reports cannot be merged (a shard missing or twice, a test in two shards), 3 a test errored.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The JSON reports (`mcpr run --shard K/N --json PATH`), in any order.
    #[arg(required = true)]
    pub reports: Vec<PathBuf>,
    /// Write the merged JSON report here (`-`: stdout, the default when no other output is asked for).
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write the merged JUnit XML here.
    #[arg(long)]
    pub junit: Option<PathBuf>,
    /// Write the merged HTML report here.
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// Print GitHub annotations on stdout and append the job summary to $GITHUB_STEP_SUMMARY.
    #[arg(long)]
    pub github: bool,
    /// Colour in the summary on stderr.
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    pub color: ColorArg,
}

/// Output format of `convert`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ToArg {
    /// MCP Test Language 1 (`.mcpr`).
    Mcpr,
    /// A YAML suite (`version: 1`).
    Yaml,
    /// A JSON suite (`version: 1`).
    Json,
}

#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// The suite to convert: `.mcpr`, `.yaml`/`.yml` or `.json`.
    pub file: PathBuf,
    /// Output format [default: yaml for a .mcpr file, mcpr for anything else].
    #[arg(long, value_enum)]
    pub to: Option<ToArg>,
    /// Write the result to this file instead of standard output.
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub size: SizeLimitArg,
}

/// Output format of diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// Source line, caret, explanation and fix.
    Human,
    /// One line per diagnostic.
    Short,
    /// Stable JSON (see docs/diagnostics-json.md).
    Json,
    /// GitHub Actions annotations.
    Github,
}

/// When to use colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    /// On a terminal, unless NO_COLOR is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Files or folders; folders are searched recursively for `.mcpr` and `.mcp` files and
    /// for `.yaml`/`.yml`/`.json` suites (files whose top level has `version` and `tests`).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = FormatArg::Human)]
    pub format: FormatArg,
    /// Colour in human output.
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    pub color: ColorArg,
    /// Also warn about things that are often intended (an export no test reads).
    #[arg(long)]
    pub pedantic: bool,
    /// Also load local data files (CSV, JSON, YAML, Excel, SQLite) through their pipelines and
    /// report bad values with their file, row and column; remote sources and plugins are
    /// never touched.
    #[arg(long)]
    pub data: bool,
    /// Apply the machine-applicable fixes (the mechanical `Try:` suggestions) to the files,
    /// then check again and report what was fixed and what remains. Only safe fixes: a
    /// misspelt keyword, built-in word or layout.
    #[arg(long)]
    pub fix: bool,
    /// With `--fix`, also apply the unsafe fixes: a name the user declared (variable, flow,
    /// test id, data source) replaced by the closest declared name.
    #[arg(long, requires = "fix")]
    pub unsafe_fixes: bool,
    /// Show at most N diagnostics for each file, then a line counting the rest (the summary
    /// counts them all); 0 shows every one.
    #[arg(long, value_name = "N", default_value_t = mcpr_runtime::suites::check::DEFAULT_MAX_DIAGNOSTICS)]
    pub max_diagnostics: usize,
    #[command(flatten)]
    pub size: SizeLimitArg,
}

/// The size limit of the suite files a command reads.
#[derive(Debug, Args, Clone, Copy, Default)]
pub struct SizeLimitArg {
    /// The largest suite or imported file to read (default 16MiB; also MCPR_MAX_FILE_SIZE),
    /// e.g. `64MiB`, `500KB`, `2000000`.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_file_size: Option<usize>,
}

fn parse_size(text: &str) -> Result<usize, String> {
    mcpr_compiler::size::parse(text)
}

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// A code: a compile diagnostic such as MCPLANG102 (or just 102), a run-time code such
    /// as MCP-TIMEOUT-001, or a code of the first implementation such as QA-LANG-001.
    #[arg(required_unless_present = "list")]
    pub code: Option<String>,
    /// List every code with its kind and title instead.
    #[arg(long, conflicts_with = "code")]
    pub list: bool,
}

/// What `compile` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EmitArg {
    /// The located syntax tree.
    Ast,
    /// The Suite IR the runtime executes.
    Ir,
}

#[derive(Debug, Args)]
pub struct CompileArgs {
    /// The file to compile.
    pub file: PathBuf,
    /// What to print.
    #[arg(long, value_enum, default_value_t = EmitArg::Ast)]
    pub emit: EmitArg,
    /// Also warn about things that are often intended (an export no test reads).
    #[arg(long)]
    pub pedantic: bool,
    #[command(flatten)]
    pub size: SizeLimitArg,
}

/// How an ad-hoc command reaches its server.
#[derive(Debug, Args)]
pub struct AdhocTarget {
    /// MCP endpoint over HTTP instead of a command: Streamable HTTP, falling back to the
    /// legacy HTTP+SSE transport when the endpoint refuses the POST (400, 404 or 405).
    #[arg(long)]
    pub url: Option<String>,
    /// HTTP header `Name: value` (repeatable).
    #[arg(long)]
    pub header: Vec<String>,
    /// Obtain tokens with the OAuth client (docs/oauth.md): discovery, registration, PKCE.
    #[arg(long)]
    pub oauth: bool,
    /// An OAuth setting `key=value` of the suite's `oauth` block (clientId, clientSecret,
    /// scope, grant, …; `${env.NAME}` for secrets); repeatable, implies --oauth.
    #[arg(long, value_name = "KEY=VALUE")]
    pub oauth_setting: Vec<String>,
    /// Neither read nor write the OAuth token cache.
    #[arg(long)]
    pub no_token_cache: bool,
    /// Pin the protocol version (e.g. 2025-11-25, 2026-07-28); probed otherwise.
    #[arg(long)]
    pub protocol: Option<String>,
    /// Deadline of the handshake and of each request (DURATION: `30s`, `500ms`, `2m`, or a
    /// number of seconds).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = duration)]
    pub timeout: Duration,
    /// The server command and its arguments, after `--` [default: mcpr.toml's `server` or
    /// `url`].
    #[arg(last = true)]
    pub command: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ToolsArgs {
    #[command(flatten)]
    pub target: AdhocTarget,
}

#[derive(Debug, Args)]
pub struct CallArgs {
    /// The tool to call.
    pub tool: String,
    /// Arguments as a JSON object (default `{}`).
    pub arguments: Option<String>,
    #[command(flatten)]
    pub target: AdhocTarget,
}

/// `mcpr auth-check URL`: exit 0 when nothing failed, 1 when a finding is a failure.
#[derive(Debug, Args)]
pub struct AuthCheckArgs {
    /// The MCP endpoint.
    pub url: String,
    /// Also run the OAuth flow (with the defaults, or the --oauth-setting values) and list
    /// the tools with the token.
    #[arg(long)]
    pub oauth: bool,
    /// An OAuth setting `key=value` (as for `mcpr tools`); implies --oauth.
    #[arg(long, value_name = "KEY=VALUE")]
    pub oauth_setting: Vec<String>,
    /// Neither read nor write the OAuth token cache.
    #[arg(long)]
    pub no_token_cache: bool,
    /// The protocol version of the probe (default 2025-11-25).
    #[arg(long)]
    pub protocol: Option<String>,
    /// Deadline of each request (DURATION).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = duration)]
    pub timeout: Duration,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct PingArgs {
    #[command(flatten)]
    pub target: AdhocTarget,
}

/// Output format of `run`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RunFormatArg {
    /// The terminal report.
    Human,
    /// The JSON report on stdout (as `--json -`), the terminal report on stderr.
    Json,
    /// JUnit XML on stdout (as `--junit -`), the terminal report on stderr.
    Junit,
    /// The terminal report, GitHub annotations and the job summary.
    Github,
}

/// The long help's closing part: examples, exit codes, environment.
const RUN_HELP: &str = "\
Examples:
  mcpr run examples/customers.mcpr
  mcpr run tests/ --jobs 4 --timeout 30s
  mcpr run tests/server.mcpr:42                  (the test at line 42)
  mcpr run tests/ -k \"add and not slow\" --durations 5
  mcpr run tests/ --last-failed
  mcpr run tests/ --junit target/junit.xml --html target/mcpr.html
  mcpr run tests/ --format json > report.json
  mcpr run tests/ --shard 2/3 --json shard-2.json   (then: mcpr report merge shard-*.json)
  mcpr run legacy.mcp --profile staging

Exit codes:
  0  every test passed or was skipped
  1  a test failed or was blocked, or a latency gate failed
  2  usage, compile or configuration error
  3  a server, transport or internal failure (a test errored)
  130  interrupted

Settings come from a flag, else an MCPR_* variable, else mcpr.toml (found upward from the
working folder; [run] overlaid by [profiles.NAME] of --config-profile), else the default;
-v prints them with where each came from.

Environment:
  MCPR_JOBS, MCPR_TIMEOUT, MCPR_SHUTDOWN_GRACE, MCPR_PROTOCOL, MCPR_JSON, MCPR_JUNIT,
  MCPR_HTML, MCPR_FORMAT, MCPR_FAIL_FAST, MCPR_NO_PROGRESS, MCPR_NO_HISTORY,
  MCPR_REUSE_SERVER
                   the flags of the same name
  MCPR_CONFIG, MCPR_CONFIG_PROFILE   --config, --config-profile
  CI=true          no progress bar; missing snapshots fail instead of being recorded
  GITHUB_ACTIONS=true   GitHub annotations (and GITHUB_STEP_SUMMARY, the job summary)
  NO_COLOR         no colour";

/// `mcpr run`: exit 0 all passed, 1 a test failed or was blocked, 2 usage or compile error,
/// 3 a server, transport or internal failure (a test errored).
#[derive(Debug, Clone, Args)]
#[command(after_long_help = RUN_HELP)]
pub struct RunArgs {
    /// Suite files or folders: `.mcpr`, YAML/JSON suites (`.yaml`, `.yml`, `.json`), legacy
    /// `.mcp` scripts, or Suite IR JSON (`mcpr compile FILE --emit ir`); folders are searched
    /// as `check` searches them. `FILE.mcpr:LINE` runs the test at that line.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Run this server command instead of the suite's target (split on spaces; quote with ").
    #[arg(long, conflicts_with = "url")]
    pub server: Option<String>,
    /// Use this HTTP endpoint instead of the suite's target: Streamable HTTP, falling back
    /// to the legacy HTTP+SSE transport when the endpoint refuses the POST (400, 404 or 405).
    #[arg(long, conflicts_with = "profile")]
    pub url: Option<String>,
    /// Use the server of this profile of an mcp-tester profile file (for `.mcp` scripts,
    /// which name no server).
    #[arg(long, short = 'p', conflicts_with = "server")]
    pub profile: Option<String>,
    /// The profile file read by --profile.
    #[arg(long, default_value = "mcp-tester.yml", requires = "profile")]
    pub profile_file: PathBuf,
    /// Most tests running at once (default: number of cores).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// Default step timeout (`30s`, `500ms`, `2m`): over the suite's default and mcpr's
    /// 10 s; a step's own timeout still wins.
    #[arg(long, value_name = "DURATION")]
    pub timeout: Option<String>,
    /// How long a server may take to exit after its stdin closes, and again after SIGTERM,
    /// before SIGKILL (`0` ends servers at once). By default `auto`: up to 1s, but SIGTERM
    /// as soon as the server sits idle after its stdin closed.
    #[arg(long, value_name = "DURATION")]
    pub shutdown_grace: Option<String>,
    /// Pin every session's protocol version (e.g. 2025-11-25, 2026-07-28); probed otherwise.
    #[arg(long)]
    pub protocol: Option<String>,
    /// Output format on stdout.
    #[arg(long, value_enum)]
    pub format: Option<RunFormatArg>,
    /// Only failures, the summary and the recap.
    #[arg(long, short = 'q', conflicts_with = "verbose")]
    pub quiet: bool,
    /// Every step, and the resolved settings with where each came from.
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// The project file (default: mcpr.toml in the working folder or a folder above).
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// The [profiles.NAME] table of mcpr.toml to use over its [run] table.
    #[arg(long, value_name = "NAME")]
    pub config_profile: Option<String>,
    /// Only tests whose name or id matches (`*` wildcard, case-insensitive), with their dependencies.
    #[arg(long = "test")]
    pub test: Option<String>,
    /// Only tests whose name or id contains these words: `add and not slow`, `(echo or
    /// ping) and not "long name"` (case-insensitive; with their dependencies).
    #[arg(short = 'k', value_name = "EXPR", value_parser = keyword)]
    pub keyword: Option<Keyword>,
    /// Only the tests that did not pass in each suite's last recorded run (every test when
    /// none failed); reads the run history.
    #[arg(long, visible_alias = "lf", conflicts_with = "failed_first")]
    pub last_failed: bool,
    /// The tests that did not pass last time first, then the rest.
    #[arg(long, visible_alias = "ff")]
    pub failed_first: bool,
    /// List the N slowest tests after the summary (0: every test).
    #[arg(long, value_name = "N")]
    pub durations: Option<usize>,
    /// With --test or -k: do not pull in dependencies (unselected producers block their
    /// consumers).
    #[arg(long)]
    pub no_deps: bool,
    /// Start no further test after the first that failed or errored.
    #[arg(long)]
    pub fail_fast: bool,
    /// Write the JSON report (docs/run-report.md) to this path (`-`: stdout).
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write a JUnit XML report to this path (`-`: stdout).
    #[arg(long)]
    pub junit: Option<PathBuf>,
    /// Write the self-contained HTML report (timeline, failures, messages) to this path.
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// Colour on the terminal.
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    pub color: ColorArg,
    /// Snapshot file (default: the suite's `Snapshots:` file, else mcpr.snap.json).
    #[arg(long)]
    pub snapshot: Option<PathBuf>,
    /// Overwrite snapshots that differ and record missing ones (also under CI=true).
    #[arg(long)]
    pub update_snapshots: bool,
    /// Run shard K of N (`2/4`): whole dependency components, dealt round-robin.
    #[arg(long)]
    pub shard: Option<String>,
    /// Read `${state.…}` values from a state file written by `--state-out`.
    #[arg(long)]
    pub state_in: Option<PathBuf>,
    /// When every test passes, write the run's outputs to this state file.
    #[arg(long)]
    pub state_out: Option<PathBuf>,
    /// Use a `--state-in` file written for another target.
    #[arg(long)]
    pub allow_state_target_mismatch: bool,
    /// Run history for latency budgets (JSON Lines; default .mcpr/history.jsonl).
    #[arg(long, value_name = "PATH", conflicts_with = "no_history")]
    pub history: Option<PathBuf>,
    /// Neither read nor append the run history (budgets then see this run alone).
    #[arg(long)]
    pub no_history: bool,
    /// Neither read nor write the OAuth token cache (tokens live for this run only).
    #[arg(long)]
    pub no_token_cache: bool,
    /// Fail a passed test that took over max(1.5 × median, median + 50 ms) of its history.
    #[arg(long)]
    pub fail_on_regression: bool,
    /// Print which advertised tools, resources, resource templates and prompts the run
    /// exercised, per server (after the recap, and in the JSON report).
    #[arg(long)]
    pub coverage: bool,
    /// Fail the run (MCP-COVERAGE-001) when it exercised under PERCENT of what the servers
    /// advertise (over the suite's `Minimum coverage:`); implies --coverage.
    #[arg(long, value_name = "PERCENT", value_parser = parse_percent)]
    pub min_coverage: Option<f64>,
    /// Run a parity comparison over the suite's compare targets instead (as `mcpr parity`).
    #[arg(long, conflicts_with_all = ["server", "url", "junit", "html", "state_out", "shard"])]
    pub compare: bool,
    /// Keep each step's response and each session's messages in the --json report.
    #[arg(long)]
    pub transcript: bool,
    /// No live progress bar (it is shown only on a terminal and never when CI is set).
    #[arg(long)]
    pub no_progress: bool,
    /// Run again whenever a suite, an import or a data file changes (debounced), the
    /// suites of the changed file first; Ctrl-C ends it (docs/run-report.md).
    #[arg(long, conflicts_with = "compare")]
    pub watch: bool,
    /// Tests on the same server run one after another in one session per job, reset between
    /// them, as the suite setting `Session: shared` asks (data rows and `Isolated session`
    /// tests keep a session of their own).
    #[arg(long)]
    pub reuse_server: bool,
    /// Run a failed or errored test again, each time in a new session, up to N times (where
    /// the test sets no `Retries:`); one that passes on a retry is reported flaky.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=100))]
    pub retries: Option<u32>,
    /// A file of test ids, names or globs, one a line: they run and are reported, but their
    /// failures do not fail the run.
    #[arg(long, value_name = "FILE")]
    pub quarantine: Option<PathBuf>,
    /// Let data sources fetch rows over the network (REST, Google Sheets, PostgreSQL).
    #[arg(long)]
    pub allow_remote_data: bool,
    /// Let plugin data sources run their command and custom-function modules run in Node.
    #[arg(long)]
    pub allow_custom_code: bool,
    /// Let remote data sources reach loopback, private and link-local addresses.
    #[arg(long)]
    pub allow_private_network: bool,
    /// Most rows one data source may give after its pipeline.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_rows: u64,
    /// Most bytes each session keeps waiting: notifications not yet taken, lines the server
    /// has not read (default 64 MiB); past it the test errors with MCP-PROTOCOL-012.
    #[arg(long, value_name = "BYTES")]
    pub max_session_buffer: Option<usize>,
    /// Most JSON values one message from a server may hold (default 1,000,000); a message
    /// with more is discarded unparsed and the test fails with MCP-PROTOCOL-013.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_message_values: Option<u64>,
    #[command(flatten)]
    pub size: SizeLimitArg,
}

/// `mcpr parity`: exit 0 when every test behaves alike on every target, 1 when some test
/// differs, 2 usage or compile error (fewer than two compare targets: MCP-PARITY-001).
#[derive(Debug, Args)]
pub struct ParityArgs {
    /// Suite files with two or more compare targets.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Most tests running at once per target (default: number of cores).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// Only tests whose name or id matches (`*` wildcard), with their dependencies.
    #[arg(long = "test")]
    pub test: Option<String>,
    /// Write the comparison as JSON to this path.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write the comparison as a Markdown section (for a pull-request comment).
    #[arg(long)]
    pub markdown: Option<PathBuf>,
    /// Colour on the terminal.
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    pub color: ColorArg,
    /// The protocol version every session speaks (e.g. 2025-11-25, 2026-07-28); probed
    /// when absent.
    #[arg(long)]
    pub protocol: Option<String>,
    /// A response path whose values differ from target to target and are not compared
    /// (`structuredContent.id`, `$.items[*].createdAt`; repeatable).
    #[arg(long = "ignore", value_name = "PATH")]
    pub ignore: Vec<String>,
}

/// Level of a lint finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LevelArg {
    /// Errors only.
    Error,
    /// Warnings and errors.
    Warning,
    /// Every finding.
    Info,
}

/// Output format of `lint` and `diff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// One line per finding or change, then a summary (as mcptest prints it).
    Human,
    /// One JSON document (see docs/lint.md).
    Json,
    /// GitHub Actions annotations.
    Github,
}

/// `mcpr lint`: exit 0 clean, 1 a finding at `--fail-on` or worse, 2 usage, 3 the server
/// failed (or wrote to stdout what is not protocol).
#[derive(Debug, Args)]
pub struct LintArgs {
    /// Fail on findings at this level or worse [default: mcpr.toml's `[lint] fail-on`, else
    /// error].
    #[arg(long, value_enum)]
    pub fail_on: Option<LevelArg>,
    /// Rule codes to skip, comma-separated (`MCP005,MCP015`; repeatable), besides mcpr.toml's
    /// `[lint] ignore`.
    #[arg(long, value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// List every rule and exit.
    #[arg(long)]
    pub rules: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
    pub format: ReportFormat,
    #[command(flatten)]
    pub target: AdhocTarget,
}

/// `mcpr snapshot -o FILE`: exit 0 written, 2 usage, 3 the server failed.
#[derive(Debug, Args)]
pub struct SnapshotArgs {
    /// The snapshot file to write [default: mcpr.toml's `[snapshot] file`].
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub target: AdhocTarget,
}

/// `mcpr diff FILE`: exit 0 no breaking change, 1 a breaking change (any change with
/// `--strict`), 2 usage, 3 the server failed.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The snapshot file (`mcpr snapshot`, or `{"tools": [...]}` as `mcpr tools` prints it)
    /// [default: mcpr.toml's `[snapshot] file`].
    pub snapshot: Option<PathBuf>,
    /// Fail on every change, compatible ones too [default: mcpr.toml's `[snapshot] strict`].
    #[arg(long, conflicts_with = "allow_breaking")]
    pub strict: bool,
    /// Report breaking changes as warnings instead of failing.
    #[arg(long)]
    pub allow_breaking: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
    pub format: ReportFormat,
    #[command(flatten)]
    pub target: AdhocTarget,
}

/// `mcpr init`: exit 0 written, 2 usage (the file exists), 3 the server failed.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// The suite to write [default: standard output].
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Overwrite the output file if it exists.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub target: AdhocTarget,
}

/// `mcpr record`: exit 0 the draft was written, 2 nothing to write or the file exists,
/// 3 the server could not start.
#[derive(Debug, Args)]
pub struct RecordArgs {
    /// The draft suite to write.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Overwrite the output file if it exists.
    #[arg(long)]
    pub force: bool,
    /// How long the server may take to exit at each stage of its shutdown (stdio; DURATION).
    #[arg(long, value_name = "DURATION", default_value = "1s", value_parser = duration)]
    pub shutdown_grace: Duration,
    /// Record over Streamable HTTP: forward every request to this MCP endpoint, and write a
    /// draft that targets it.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    pub url: Option<String>,
    /// With --url: the address to listen on (port 0: a free port; the URL to give the
    /// client is printed on stderr).
    #[arg(
        long,
        value_name = "ADDR",
        default_value = "127.0.0.1:0",
        requires = "url"
    )]
    pub listen: String,
    /// With --url: `delete` ends the recording when the client ends its last open session
    /// with DELETE; `signal` only on Ctrl-C / SIGTERM (or --idle).
    #[arg(long, value_enum, default_value_t = UntilArg::Delete, requires = "url")]
    pub until: UntilArg,
    /// With --url: also end after this long without a request (`30s`, `2m`).
    #[arg(long, value_name = "DURATION", value_parser = duration, requires = "url")]
    pub idle: Option<Duration>,
    /// The server command and its arguments, after `--` (stdio).
    #[arg(last = true, required_unless_present = "url")]
    pub command: Vec<String>,
}

/// When `mcpr record --url` ends, besides Ctrl-C / SIGTERM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum UntilArg {
    /// When the client ends its last open session (DELETE).
    Delete,
    /// Only on a signal (or --idle).
    Signal,
}

fn keyword(text: &str) -> Result<Keyword, String> {
    Keyword::parse(text)
}

/// Every duration flag takes one syntax (docs/cli.md, "Durations"): `30s`, `500ms`, `2m`,
/// or a bare number of seconds.
fn duration(text: &str) -> Result<Duration, String> {
    mcpr_runtime::run::config::parse_duration(text)
}

/// `mcpr fuzz`: exit 0 nothing found, 1 a finding, 2 usage, 3 the server failed to start.
#[derive(Debug, Args)]
pub struct FuzzArgs {
    /// Only this tool.
    #[arg(long, value_name = "NAME")]
    pub tool: Option<String>,
    /// Inputs per tool.
    #[arg(long, value_name = "N", default_value_t = mcpr_runtime::fuzz::DEFAULT_CASES)]
    pub cases: usize,
    /// The seed of the inputs (printed; the same seed gives the same inputs) [default: from
    /// the clock].
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Where regression tests of the findings are written.
    #[arg(short, long, value_name = "DIR", default_value = "mcpr-fuzz")]
    pub output: PathBuf,
    /// Most calls spent minimising one finding.
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub shrink_calls: usize,
    #[command(flatten)]
    pub target: AdhocTarget,
}

/// A percentage from 0 to 100 (`80`, `80%`, `72.5`).
fn parse_percent(text: &str) -> Result<f64, String> {
    let digits = text.trim().trim_end_matches('%');
    match digits.parse::<f64>() {
        Ok(p) if (0.0..=100.0).contains(&p) => Ok(p),
        _ => Err(format!("{text:?} is not a percentage from 0 to 100")),
    }
}

impl RunArgs {
    /// What the flags set of the settings that may also come from `MCPR_*` variables and
    /// mcpr.toml (unset flags are `None`, so the next place decides).
    pub fn flag_settings(&self) -> mcpr_runtime::run::config::Settings {
        use mcpr_runtime::run::config::{Percent, Settings};
        Settings {
            jobs: self.jobs,
            timeout: self.timeout.clone(),
            shutdown_grace: self.shutdown_grace.clone(),
            protocol: self.protocol.clone(),
            json: self.json.clone(),
            junit: self.junit.clone(),
            html: self.html.clone(),
            format: self
                .format
                .and_then(|f| f.to_possible_value())
                .map(|v| v.get_name().to_string()),
            fail_fast: self.fail_fast.then_some(true),
            no_progress: self.no_progress.then_some(true),
            // `--history PATH` asks for a history: it wins over a variable or file that
            // turns it off.
            no_history: if self.history.is_some() {
                Some(false)
            } else {
                self.no_history.then_some(true)
            },
            reuse_server: self.reuse_server.then_some(true),
            min_coverage: self.min_coverage.map(|p| Percent::Text(p.to_string())),
            retries: self.retries,
            quarantine: self.quarantine.clone(),
        }
    }
}

/// Output format of `conformance`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ConformanceFormat {
    /// One line per check and a summary.
    Human,
    /// The checks as one JSON document (docs/conformance.md).
    Json,
    /// The run's JUnit XML on stdout.
    Junit,
}

/// `mcpr conformance [--url URL | -- CMD ARGS…]`: exit 0 every check succeeded (warnings
/// and infos allowed), 1 a check failed, 2 usage, 3 the server could not be reached.
#[derive(Debug, Args)]
pub struct ConformanceArgs {
    /// MCP endpoint over Streamable HTTP instead of a command.
    #[arg(long)]
    pub url: Option<String>,
    /// Protocol version to test (repeatable), or `all` [default: every era the server speaks].
    #[arg(long, value_name = "VERSION|all")]
    pub protocol: Vec<String>,
    /// Standard library to run (`tools` or `std:tools`; repeatable) [default: all].
    #[arg(long, value_name = "NAME")]
    pub suite: Vec<String>,
    /// An input of the flows, `NAME=VALUE` (the value read as JSON, else text); repeatable.
    #[arg(long, value_name = "NAME=VALUE")]
    pub input: Vec<String>,
    /// Expected failures, one check id (`CHECK` or `CHECK@VERSION`) per line.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// List the checks of the libraries and exit.
    #[arg(long)]
    pub list: bool,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = ConformanceFormat::Human)]
    pub format: ConformanceFormat,
    /// Also write the run's JSON report to this file (`-`: stdout).
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Also write JUnit XML to this file (`-`: stdout).
    #[arg(long, value_name = "PATH")]
    pub junit: Option<PathBuf>,
    /// Also write the HTML report to this file.
    #[arg(long, value_name = "PATH")]
    pub html: Option<PathBuf>,
    /// Most checks at once.
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Deadline of each request (DURATION).
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = duration)]
    pub timeout: Duration,
    /// When to use colour.
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    pub color: ColorArg,
    /// The server command and its arguments, after `--`.
    #[arg(last = true)]
    pub command: Vec<String>,
}
