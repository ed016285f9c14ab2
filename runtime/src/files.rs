//! Files mcpr writes for people and machines (reports, state, snapshots): written whole
//! or not at all. The text goes to a temporary file beside the target, is flushed to disk,
//! and replaces the target by a rename, so a reader never sees half a report and a run
//! killed while writing leaves the previous file as it was. And the files mcpr reads as
//! suites: regular files only ([`read_regular`]).

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
}

/// Writes `bytes` to `path` atomically (see the module documentation). The error names
/// the file.
pub fn write_atomic(path: &Path, bytes: &[u8], access: Access) -> Result<(), String> {
    let tmp = temporary_beside(path);
    let written = (|| {
        use std::os::unix::fs::OpenOptionsExt;
        let mode = match access {
            Access::Shared => 0o644,
            Access::Private => 0o600,
        };
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&tmp)?;
        f.write_all(bytes)?;
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
}
