//! [`write_dir`]: the corpus as one file per kind plus `manifest.json`.

use crate::config::{GenConfig, Kind};
use crate::generator::Generator;
use crate::summary::GenSummary;
use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

/// Name of the manifest file (the [`GenSummary`] as pretty JSON).
pub const MANIFEST: &str = "manifest.json";

fn with_path(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// Writes the corpus of `cfg` to `dir` (created if missing) as `syslog.log`, `access.log`,
/// `app.json` and `app_java.log` (see [`Kind::file_name`]) and `manifest.json`; calls
/// `progress(bytes_so_far)` after every chunk. Existing files of those names are replaced.
/// Errors name the file.
pub fn write_dir(
    cfg: GenConfig,
    dir: &Path,
    progress: &mut dyn FnMut(u64),
) -> io::Result<GenSummary> {
    std::fs::create_dir_all(dir).map_err(|e| with_path(dir, e))?;
    let mut files = Vec::with_capacity(4);
    for kind in Kind::ALL {
        let path = dir.join(kind.file_name());
        let file = File::create(&path).map_err(|e| with_path(&path, e))?;
        files.push((path, file));
    }
    let mut written = 0u64;
    let summary = Generator::new(cfg).try_generate(&mut |kind, chunk| {
        let (path, file) = &mut files[kind as usize];
        file.write_all(chunk).map_err(|e| with_path(path, e))?;
        written += chunk.len() as u64;
        progress(written);
        Ok::<(), io::Error>(())
    })?;
    for (path, file) in &mut files {
        file.flush().map_err(|e| with_path(path, e))?;
    }
    let path = dir.join(MANIFEST);
    let json = serde_json::to_vec_pretty(&summary).map_err(io::Error::other)?;
    std::fs::write(&path, json).map_err(|e| with_path(&path, e))?;
    Ok(summary)
}
