"""Where the ``mcpr`` binary of this installation is."""

import os
import sys
import sysconfig


def _candidates():
    exe = "mcpr" + (sysconfig.get_config_var("EXE") or "")
    # The scripts folder of the environment this package is installed in (a virtual
    # environment, the user site, or the system), then the one pip uses for --user.
    yield os.path.join(sysconfig.get_path("scripts"), exe)
    scheme = "posix_user" if os.name == "posix" else "nt_user"
    try:
        yield os.path.join(sysconfig.get_path("scripts", scheme), exe)
    except KeyError:
        pass
    # pip --target and similar layouts: the scripts folder beside the package folder.
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    yield os.path.join(package_root, "bin", exe)


def find_mcpr_bin():
    """The path of the ``mcpr`` binary installed with this package.

    ``MCPR_BINARY`` names another binary to use. Raises ``FileNotFoundError`` when none
    is found.
    """
    override = os.environ.get("MCPR_BINARY")
    if override:
        if os.path.isfile(override) and os.access(override, os.X_OK):
            return override
        raise FileNotFoundError("MCPR_BINARY=%s is not an executable file" % override)
    seen = []
    for path in _candidates():
        seen.append(path)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise FileNotFoundError(
        "the mcpr binary of this installation is missing (looked in: %s); "
        "reinstall the mcpr package" % ", ".join(seen)
    )


def main():
    """``python -m mcpr ARGS``: runs the binary with ARGS and exits with its code."""
    binary = find_mcpr_bin()
    if os.name == "posix":
        os.execv(binary, [binary] + sys.argv[1:])
    import subprocess

    sys.exit(subprocess.call([binary] + sys.argv[1:]))
