//! Builds the web app in `ui/` (Vite + TypeScript) and embeds it: `npm ci` when
//! `ui/package-lock.json` is newer than the installed `node_modules`, then `npm run build` into
//! `$OUT_DIR/ui-dist`, then `$OUT_DIR/ui_assets.rs` lists every built file with
//! `include_bytes!` (served by `web.rs`). Reruns only when the app's sources change.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What of `ui/` the build reads; a change to any reruns this script.
const SOURCES: &[&str] = &[
    "src",
    "public",
    "index.html",
    "package.json",
    "package-lock.json",
    "tsconfig.json",
    "vite.config.ts",
];

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let ui = manifest.join("../../ui");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    for s in SOURCES {
        println!("cargo:rerun-if-changed={}", ui.join(s).display());
    }
    println!("cargo:rerun-if-env-changed=NPM");
    let dist = out.join("ui-dist");
    let npm = std::env::var("NPM").unwrap_or_else(|_| "npm".into());
    if needs_install(&ui) {
        run(&npm, &["ci", "--no-audit", "--no-fund"], &ui);
    }
    let out_dir = dist.display().to_string();
    run(
        &npm,
        &["run", "build", "--", "--outDir", &out_dir, "--emptyOutDir"],
        &ui,
    );
    let mut files = Vec::new();
    collect(&dist, &dist, &mut files);
    files.sort();
    if !files.iter().any(|(p, _)| p == "/index.html") {
        panic!("the web app build left no index.html in {}", dist.display());
    }
    let mut src = String::from("/// The built web app: URL path → file contents.\n");
    src.push_str("pub static ASSETS: &[(&str, &[u8])] = &[\n");
    for (url, path) in &files {
        let _ = writeln!(src, "    ({url:?}, include_bytes!({:?})),", path.display());
    }
    src.push_str("];\n");
    std::fs::write(out.join("ui_assets.rs"), src).expect("write ui_assets.rs");
}

/// Whether `node_modules` is missing or older than the lock file.
fn needs_install(ui: &Path) -> bool {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    match (
        modified(&ui.join("node_modules/.package-lock.json")),
        modified(&ui.join("package-lock.json")),
    ) {
        (Some(installed), Some(lock)) => installed < lock,
        _ => true,
    }
}

fn run(npm: &str, args: &[&str], dir: &Path) {
    let status = Command::new(npm).args(args).current_dir(dir).status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => panic!(
            "`{npm} {}` in {} failed ({s}); the web app must build for the lode binary to embed it",
            args.join(" "),
            dir.display()
        ),
        Err(e) => panic!(
            "cannot run `{npm}` ({e}): building lode needs Node.js 20+ and npm to build the web app \
             in ui/ (install them, or set NPM to npm's path)"
        ),
    }
}

/// Every file under `dir` as (URL path from `root`, absolute path).
fn collect(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(root, &p, out);
        } else if let Ok(rel) = p.strip_prefix(root) {
            let url = format!("/{}", rel.to_string_lossy().replace('\\', "/"));
            let abs = std::fs::canonicalize(&p).unwrap_or(p.clone());
            out.push((url, abs));
        }
    }
}
