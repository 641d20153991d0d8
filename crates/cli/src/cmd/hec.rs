//! `lode hec …`: HTTP Event Collector tokens, written to
//! `etc/apps/splunk_httpinput/local/inputs.conf` (where Splunk keeps them). A running server
//! re-reads the file when it changes.

use lode_node::hec::{HecConfig, HecToken};
use lode_node::Home;

use crate::cli::{HecCommand, HecCreateArgs};
use crate::exit::{CliError, CliResult, CONFIG};

fn config_error(e: lode_node::NodeError) -> CliError {
    CliError::new(CONFIG, e.to_string())
}

pub fn run(home: &Home, cmd: HecCommand) -> CliResult {
    let mut cfg = HecConfig::load(home).map_err(config_error)?;
    match cmd {
        HecCommand::List => {
            list(&cfg);
            return Ok(());
        }
        HecCommand::Create(a) => {
            let tok = create(&mut cfg, a)?;
            cfg.save(home).map_err(config_error)?;
            println!("{}", tok.token);
            return Ok(());
        }
        HecCommand::Delete(a) => {
            cfg.remove(&a.name).map_err(config_error)?;
        }
        HecCommand::Enable(a) => cfg.by_name_mut(&a.name).map_err(config_error)?.disabled = false,
        HecCommand::Disable(a) => cfg.by_name_mut(&a.name).map_err(config_error)?.disabled = true,
    }
    cfg.save(home).map_err(config_error)
}

fn create(cfg: &mut HecConfig, a: HecCreateArgs) -> CliResult<HecToken> {
    let mut t = HecToken::new(&a.name);
    if let Some(v) = a.token {
        if v.trim().is_empty() || v.contains(char::is_whitespace) {
            return Err(CliError::new(
                CONFIG,
                "a token value must be non-empty, without spaces",
            ));
        }
        t.token = v;
    }
    t.index = a.index;
    t.indexes = a.indexes.into_iter().filter(|i| !i.is_empty()).collect();
    t.sourcetype = a.sourcetype;
    t.source = a.source;
    t.host = a.host;
    t.use_ack = a.ack;
    t.allow_query_string_auth = a.allow_query_string_auth;
    cfg.add(t.clone()).map_err(config_error)?;
    Ok(t)
}

fn list(cfg: &HecConfig) {
    let s = &cfg.settings;
    println!(
        "collector: {} on port {} ({})",
        if s.disabled { "disabled" } else { "enabled" },
        s.port,
        if s.enable_ssl { "https" } else { "http" }
    );
    if cfg.tokens.is_empty() {
        println!("no tokens (create one with `lode hec create NAME`)");
        return;
    }
    println!(
        "{:<20} {:<36} {:<8} {:<5} {:<10} indexes",
        "name", "token", "state", "ack", "index"
    );
    for t in &cfg.tokens {
        println!(
            "{:<20} {:<36} {:<8} {:<5} {:<10} {}",
            t.name,
            t.token,
            if t.disabled { "disabled" } else { "enabled" },
            if t.use_ack { "on" } else { "off" },
            t.index.as_deref().unwrap_or("main"),
            if t.indexes.is_empty() {
                "any".to_string()
            } else {
                t.indexes.join(",")
            }
        );
    }
}
