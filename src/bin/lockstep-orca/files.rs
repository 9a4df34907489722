//! Safe file handling: bounded reads, outputs that never overwrite an input, and outputs written
//! through a temporary file that is renamed over the final name only when complete.

use crate::Fail;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Read};
use std::path::{Path, PathBuf};

/// Largest scenario file read (TOML): 16 MiB.
pub const MAX_SCENARIO_BYTES: u64 = 16 << 20;

/// Reads at most `limit` bytes of `path`; a larger file is refused (exit 2), naming the limit.
pub fn read_limited(path: &Path, limit: u64, what: &str) -> Result<Vec<u8>, Fail> {
    let name = path.display();
    let file = File::open(path).map_err(|e| Fail::input(format!("cannot read {name}: {e}")))?;
    let meta = file
        .metadata()
        .map_err(|e| Fail::input(format!("cannot read {name}: {e}")))?;
    if meta.is_dir() {
        return Err(Fail::input(format!(
            "cannot read {name}: it is a directory"
        )));
    }
    let too_big = || {
        Fail::input(format!(
            "{name} is larger than the {what} size limit of {limit} bytes"
        ))
    };
    if meta.len() > limit {
        return Err(too_big());
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    // `take(limit + 1)`: a file that grows while being read is still bounded.
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Fail::input(format!("cannot read {name}: {e}")))?;
    if bytes.len() as u64 > limit {
        return Err(too_big());
    }
    Ok(bytes)
}

/// The path as it will be resolved: canonical if it exists, else its canonical parent joined
/// with its file name.
fn resolved(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = path.canonicalize() {
        return Some(p);
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Some(parent.canonicalize().ok()?.join(path.file_name()?))
}

/// Whether two paths name the same file (same resolved path, or on Unix the same inode).
fn same_file(a: &Path, b: &Path) -> bool {
    if let (Some(x), Some(y)) = (resolved(a), resolved(b))
        && x == y
    {
        return true;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    false
}

/// Refuses outputs that name an input or each other (exit 2).
pub fn check_outputs(outputs: &[&Path], inputs: &[&Path]) -> Result<(), Fail> {
    for (i, out) in outputs.iter().enumerate() {
        for input in inputs {
            if same_file(out, input) {
                return Err(Fail::input(format!(
                    "refusing to write {} over the input {}",
                    out.display(),
                    input.display()
                )));
            }
        }
        for other in &outputs[..i] {
            if same_file(out, other) {
                return Err(Fail::input(format!(
                    "{} is named as two outputs",
                    out.display()
                )));
            }
        }
    }
    Ok(())
}

/// An output being written: a temporary file next to the final one (so the rename stays on one
/// file system), renamed over the final name by [`commit`](Self::commit), removed if dropped
/// before. Creating it is the writability check, done before any long run starts.
pub struct Output {
    path: PathBuf,
    tmp: PathBuf,
    writer: Option<BufWriter<File>>,
}

impl Output {
    /// Creates the temporary file for `path` (exit 2 if it cannot be created, or `path` is a
    /// directory).
    pub fn create(path: &Path) -> Result<Self, Fail> {
        let name = path.display();
        if path.is_dir() {
            return Err(Fail::input(format!(
                "cannot write {name}: it is a directory"
            )));
        }
        let file_name = path
            .file_name()
            .ok_or_else(|| Fail::input(format!("cannot write {name}: not a file name")))?;
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(file_name);
        tmp_name.push(format!(".{}.tmp", std::process::id()));
        let tmp = path.with_file_name(tmp_name);
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| Fail::input(format!("cannot write {name}: {e}")))?;
        Ok(Self {
            path: path.to_path_buf(),
            tmp,
            writer: Some(BufWriter::new(file)),
        })
    }

    /// The final path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The writer (to the temporary file).
    pub fn writer(&mut self) -> &mut BufWriter<File> {
        self.writer.as_mut().expect("not committed")
    }

    /// Flushes, syncs and renames the temporary file over the final name (exit 1 on failure:
    /// the run itself succeeded).
    pub fn commit(mut self) -> Result<(), Fail> {
        let name = self.path.display().to_string();
        let writer = self.writer.take().expect("committed once");
        let done = writer
            .into_inner()
            .map_err(|e| e.error().to_string())
            .and_then(|file| file.sync_all().map_err(|e| e.to_string()))
            .and_then(|()| std::fs::rename(&self.tmp, &self.path).map_err(|e| e.to_string()));
        done.map_err(|e| {
            let _ = std::fs::remove_file(&self.tmp);
            Fail::failed(format!("cannot write {name}: {e}"))
        })
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if self.writer.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}
