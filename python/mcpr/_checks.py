"""The checks a test makes of a server: lint cleanliness and tool snapshots.

Both run in the engine (the driver's ``lint``, ``snapshot`` and ``diff``); this module
only decides pass or fail and words the failure.
"""

import os

_LEVELS = ("error", "warning", "info")


def _plural(n, word):
    return "%d %s%s" % (n, word, "" if n == 1 or word == "info" else "s")


def lint_failures(report):
    """The findings of a lint report that fail ``assert_lint_clean``: warnings and errors."""
    return [f for f in report.get("findings") or [] if f.get("level") in ("error", "warning")]


def assert_lint_clean(mcp, ignore=None):
    """Fails (``AssertionError``) when mcpr's lint rules find a warning or an error in the
    server's tools, resources or prompts, or when the server printed on stdout what is not
    protocol. ``ignore`` lists rule codes to skip (``["MCP005"]``). Info findings never
    fail. The message lists every failing finding."""
    __tracebackhide__ = True  # pytest shows the caller's line and the message
    report = mcp.lint(ignore=ignore, fail_on="warning")
    failing = lint_failures(report)
    noise = list(report.get("stdoutNoise") or [])
    if not failing and not noise:
        return report
    summary = report.get("summary") or {}
    lines = []
    if failing:
        lines.append(
            "MCP lint found %s and %s in %s (assert_lint_clean fails on warnings and errors):"
            % (
                _plural(summary.get("errors", 0), "error"),
                _plural(summary.get("warnings", 0), "warning"),
                report.get("server") or "the server",
            )
        )
        order = {level: i for i, level in enumerate(_LEVELS)}
        for f in sorted(failing, key=lambda f: order.get(f.get("level"), 9)):
            name = f.get("name")
            where = "%s: " % name if name else ""
            lines.append("  %-7s %s %s%s" % (f.get("level"), f.get("code"), where, f.get("message")))
    if noise:
        lines.append("the server printed to stdout what is not MCP protocol (stdout is for protocol only):")
        lines.extend("  " + line for line in noise)
    if ignore:
        lines.append("  (ignored: %s)" % ", ".join([ignore] if isinstance(ignore, str) else ignore))
    raise AssertionError("\n".join(lines))


def snapshot_path(test_file, name="tools"):
    """Where a test file's snapshot lives: ``__mcp_snapshots__/<test file name>/<name>.json``
    beside the test file."""
    test_file = os.fspath(test_file)
    return os.path.join(
        os.path.dirname(os.path.abspath(test_file)),
        "__mcp_snapshots__",
        os.path.basename(test_file),
        name + ".json",
    )


class SnapshotOutcome(object):
    """What ``check_snapshot`` did: ``action`` is ``"created"``, ``"updated"``,
    ``"unchanged"``, ``"compatible"`` (compatible changes allowed, file kept) or
    ``"failed"``; ``report`` is the driver's diff report (or ``None``); ``message`` says
    it for people."""

    def __init__(self, action, path, report=None, message=""):
        self.action = action
        self.path = path
        self.report = report
        self.message = message


def diff_message(report, file_name, update_hint):
    """The failure message of a snapshot diff: the counts, one line per change (breaking
    first), and how to accept them."""
    changes = list(report.get("changes") or [])
    changes.sort(key=lambda c: 0 if c.get("breaking") else 1)  # stable: the engine's order within
    lines = [
        "MCP tools differ from snapshot %s (%d breaking, %d compatible):"
        % (file_name, report.get("breaking", 0), report.get("compatible", 0))
    ]
    for c in changes:
        line = c.get("line")
        if not line:
            mark = "BREAKING" if c.get("breaking") else "ok      "
            line = "  %s %s: %s" % (mark, c.get("name"), c.get("message"))
        lines.append(line)
    lines.append(update_hint)
    return "\n".join(lines)


UPDATE_HINT = "Run pytest --mcp-update-snapshots to accept these changes."


def check_snapshot(mcp, path, update=False, allow_compatible=False, update_hint=UPDATE_HINT):
    """Compares the server's tools with the snapshot file ``path``, creating it when it is
    missing and rewriting it when ``update``. Returns a ``SnapshotOutcome``; the caller
    fails the test when its ``action`` is ``"failed"``.

    A failure is any breaking change, or with ``allow_compatible=False`` any change at all.
    With ``allow_compatible=True``, compatible changes pass and the file is left as it is
    (``--mcp-update-snapshots`` records them)."""
    file_name = os.path.basename(path)
    if update or not os.path.exists(path):
        existed = os.path.exists(path)
        text = mcp.snapshot()["text"]
        old = None
        if existed:
            with open(path, "r", encoding="utf-8", newline="") as f:
                old = f.read()
        if old != text:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(text)
        action = "unchanged" if old == text else ("updated" if existed else "created")
        return SnapshotOutcome(action, path, None, "snapshot %s %s" % (path, action))
    with open(path, "r", encoding="utf-8", newline="") as f:
        old = f.read()
    report = mcp.diff(old, name=file_name)
    breaking = report.get("breaking", 0)
    compatible = report.get("compatible", 0)
    if breaking == 0 and compatible == 0:
        return SnapshotOutcome("unchanged", path, report)
    message = diff_message(report, file_name, update_hint)
    if breaking == 0 and allow_compatible:
        return SnapshotOutcome("compatible", path, report, message)
    return SnapshotOutcome("failed", path, report, message)
