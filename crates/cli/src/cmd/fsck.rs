//! `lode fsck` (verify every bucket file, optionally quarantine) and `lode inspect` (summary of
//! one bucket).

use lode_node::Home;

use crate::cli::{FsckArgs, InspectArgs};
use crate::exit::{CliError, CliResult, FAILURE, FSCK_PROBLEMS, USAGE};

pub fn fsck(home: &Home, args: FsckArgs) -> CliResult {
    let root = home.index_root();
    let mut indexes: Vec<String> = match &args.index {
        Some(i) => vec![i.clone()],
        None => std::fs::read_dir(&root)
            .map_err(|e| CliError::new(FAILURE, format!("cannot list {}: {e}", root.display())))?
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_dir())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect(),
    };
    indexes.sort();
    let mut problems = 0usize;
    for index in &indexes {
        let dir = root.join(index);
        if !dir.is_dir() {
            return Err(CliError::new(
                USAGE,
                format!("index '{index}' has no data directory {}", dir.display()),
            ));
        }
        let found = lode_store::fsck(&dir, args.quarantine)
            .map_err(|e| CliError::new(FAILURE, e.to_string()))?;
        if found.is_empty() {
            println!("{index}: ok");
        }
        for p in &found {
            println!("{index}: {p}");
        }
        problems += found.len();
    }
    if problems > 0 {
        let what = if args.quarantine {
            "; corrupt buckets were moved to quarantine/"
        } else {
            "; run with --quarantine to move corrupt buckets aside"
        };
        return Err(CliError::new(
            FSCK_PROBLEMS,
            format!("{problems} problem(s) found{what}"),
        ));
    }
    Ok(())
}

pub fn inspect(args: InspectArgs) -> CliResult {
    let summary =
        lode_store::inspect(&args.bucket).map_err(|e| CliError::new(FAILURE, e.to_string()))?;
    println!("{summary}");
    Ok(())
}
