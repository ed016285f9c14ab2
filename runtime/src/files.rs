//! Files mcpr writes for people and machines (reports, state, snapshots): written whole
//! or not at all. The text goes to a temporary file beside the target, is flushed to disk,
//! and replaces the target by a rename, so a reader never sees half a report and a run
//! killed while writing leaves the previous file as it was. The temporary file is named
//! after the process (`.NAME.<pid>.tmp`): one left behind by a process that was killed
//! (`kill -9`) is removed by the next write beside it, once no process has that id. And
//! the files mcpr reads as suites: regular files only ([`read_regular`]).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// What a file that is not a regular file is, in words ("a named pipe (FIFO)").
pub fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let kind = meta.file_type();
    if kind.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

/// Reads a whole regular file. Anything else is refused with an error of kind
/// `InvalidInput` saying what it is, before it is read: reading a named pipe waits for a
/// writer that may never come, and a device may never end. The file is opened without
/// waiting (`O_NONBLOCK`) and judged by the opened handle, so a file swapped for a pipe
/// between the look and the opening is refused too.
pub fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    let refuse = |meta: &std::fs::Metadata| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("it is {}, not a regular file", kind_of(meta)),
        )
    };
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(refuse(&meta));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits());
    }
    let mut file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(refuse(&meta));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Who may read a written file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// The usual permissions (0644 before the umask): reports, snapshots.
    Shared,
    /// The owner only (0600): files that hold secrets, such as the state file.
    Private,
    /// The permissions the file has now (a suite rewritten by `mcpr fmt` or `check --fix`
    /// stays as private, or as executable, as it was); 0644 before the umask for a new file.
    Kept,
}

/// Writes `bytes` to `path` atomically (see the module documentation). The error names
/// the file.
pub fn write_atomic(path: &Path, bytes: &[u8], access: Access) -> Result<(), String> {
    write_atomic_with(path, access, &mut |f| f.write_all(bytes))
}

/// [`write_atomic`] of what `write` writes, through a buffer: a large report is written as
/// it is serialised, never held whole in memory.
pub fn write_atomic_with(
    path: &Path,
    access: Access,
    write: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let tmp = temporary_beside(path);
    remove_stale_temporaries(path);
    let kept = match access {
        Access::Kept => std::fs::metadata(path)
            .ok()
            .map(|m| m.permissions().mode() & 0o7777),
        _ => None,
    };
    let written = (|| {
        use std::os::unix::fs::OpenOptionsExt;
        let mode = match access {
            Access::Shared | Access::Kept => 0o644,
            Access::Private => 0o600,
        };
        let f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&tmp)?;
        if let Some(mode) = kept {
            // Exactly the old mode, whatever the umask says.
            f.set_permissions(std::fs::Permissions::from_mode(mode))?;
        }
        let mut buffered = std::io::BufWriter::new(f);
        write(&mut buffered)?;
        let f = buffered.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("cannot write {}: {e}", path.display()));
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("cannot write {}: {e}", path.display())
    })
}

/// A name for the temporary file: hidden, in the target's folder (a rename across file
/// systems is not atomic), unique to this process.
fn temporary_beside(path: &Path) -> PathBuf {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map_or("mcpr".into(), |n| n.to_string_lossy().into_owned());
    dir.join(format!(".{name}.{}.tmp", std::process::id()))
}

/// Removes the temporary files of `path` that processes no longer running left beside it
/// (`.NAME.<pid>.tmp` of a writer that was killed before its rename). Another process that
/// is writing the same file keeps its temporary file: its id is alive.
fn remove_stale_temporaries(path: &Path) {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return;
    };
    let prefix = format!(".{name}.");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(pid) = file
            .to_str()
            .and_then(|f| f.strip_prefix(&prefix))
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .and_then(|pid| pid.parse::<i32>().ok())
        else {
            continue;
        };
        if pid > 0 && pid != std::process::id() as i32 && !process_exists(pid) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether a process with this id exists (one of another user's counts too).
fn process_exists(pid: i32) -> bool {
    use nix::errno::Errno;
    match nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None) {
        Ok(()) => true,
        Err(Errno::ESRCH) => false,
        Err(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_files_and_keeps_the_old_one_on_failure() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("report.json");
        write_atomic(&path, b"first\n", Access::Shared).expect("written");
        write_atomic(&path, b"second\n", Access::Private).expect("rewritten");
        assert_eq!(std::fs::read(&path).expect("read"), b"second\n");
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        // A target in a folder that does not exist: an error naming it, nothing left over.
        let missing = dir.path().join("no/such/report.json");
        let e = write_atomic(&missing, b"x", Access::Shared).unwrap_err();
        assert!(e.contains("no/such/report.json"), "{e}");
        let left: Vec<_> = std::fs::read_dir(dir.path()).expect("list").collect();
        assert_eq!(left.len(), 1, "only report.json remains");
    }

    #[test]
    fn a_kept_mode_survives_and_a_new_file_gets_the_usual_one() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("suite.mcpr");
        std::fs::write(&path, "old\n").expect("written");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        write_atomic(&path, b"new\n", Access::Kept).expect("rewritten");
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(std::fs::read(&path).expect("read"), b"new\n");
        let fresh = dir.path().join("fresh.mcpr");
        write_atomic(&fresh, b"x", Access::Kept).expect("written");
        let mode = std::fs::metadata(&fresh)
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o600, 0o600, "readable and writable by its owner");
    }

    #[test]
    fn temporaries_of_dead_writers_go_and_live_ones_stay() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("report.json");
        // A child that has exited: its id is free (a zombie reaped by `wait`).
        let mut child = std::process::Command::new("true").spawn().expect("true");
        let dead = child.id();
        child.wait().expect("waited");
        let stale = dir.path().join(format!(".report.json.{dead}.tmp"));
        std::fs::write(&stale, "half a report").expect("planted");
        // A live process (the parent of this test) keeps its temporary file.
        let live = dir
            .path()
            .join(format!(".report.json.{}.tmp", nix::unistd::getppid()));
        std::fs::write(&live, "being written").expect("planted");
        let other = dir.path().join(".other.json.1.tmp");
        std::fs::write(&other, "another file's").expect("planted");
        write_atomic(&path, b"{}\n", Access::Shared).expect("written");
        assert!(!stale.exists(), "the dead writer's file is gone");
        assert!(live.exists(), "a live writer's file stays");
        assert!(other.exists(), "another file's temporary stays");
    }
}
