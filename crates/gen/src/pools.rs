//! Pre-rendered value pools (hosts, IPs, URLs, stack traces) with their skewed samplers.
//!
//! Everything an event needs that is expensive to format is rendered once here, from the seed, so
//! the hot loop only copies bytes. Pools are Zipf-skewed: a few hosts, clients, URLs and failures
//! dominate, as in real machine data.

use crate::skew::Skewed;
use crate::vocab;
use rand::{Rng, RngCore};

/// Number of distinct client IPs of the access log.
const CLIENT_IPS: usize = 5_000;
/// Number of distinct brute-force sources of failed SSH logins.
const ATTACKER_IPS: usize = 300;
/// Number of distinct URLs (instances of [`vocab::URL_TEMPLATES`]).
const URLS: usize = 3_000;
/// Number of distinct stack traces of the Java log.
const STACKS: usize = 48;

/// The hosts that emit one kind of data, and how often each does.
#[derive(Debug, Clone)]
pub struct HostSet {
    /// Indices into [`Pools::hosts`].
    pub ids: Vec<u32>,
    /// Skewed choice among `ids`.
    pub sel: Skewed,
}

impl HostSet {
    /// Draws a host index (into [`Pools::hosts`]).
    #[inline]
    pub fn pick(&self, bits: u64) -> usize {
        self.ids[self.sel.pick(bits)] as usize
    }
}

/// One URL of the access log.
#[derive(Debug, Clone)]
pub struct Url {
    /// HTTP method.
    pub method: &'static str,
    /// Path with query string.
    pub path: String,
}

/// One stack trace of the Java log.
#[derive(Debug, Clone)]
pub struct Stack {
    /// Index into [`vocab::LOGGERS`] of the class that logs it.
    pub logger: usize,
    /// The lines after the first line of the event, each preceded by `\n`, no trailing newline.
    pub text: String,
}

/// All pools; built once per [`crate::Generator`].
#[derive(Debug, Clone)]
pub struct Pools {
    /// Host names: `web-NNN`, `app-NNN`, `db-NNN`.
    pub hosts: Vec<String>,
    /// Per [`Kind`] (by `Kind as usize`): which hosts emit it.
    pub host_sets: [HostSet; 4],
    /// Per host: seconds since boot at the start of the corpus (kernel timestamps).
    pub boot_secs: Vec<u64>,
    /// Users ([`vocab::USERS`]).
    pub users: Skewed,
    /// Client IPs of the access log.
    pub client_ips: Vec<String>,
    /// Skewed choice among `client_ips`.
    pub client_sel: Skewed,
    /// Sources of failed SSH logins.
    pub attacker_ips: Vec<String>,
    /// Skewed choice among `attacker_ips`.
    pub attacker_sel: Skewed,
    /// URLs of the access log.
    pub urls: Vec<Url>,
    /// Skewed choice among `urls`.
    pub url_sel: Skewed,
    /// HTTP statuses ([`vocab::STATUSES`]).
    pub statuses: Skewed,
    /// User agents ([`vocab::USER_AGENTS`]).
    pub agents: Skewed,
    /// Referers ([`vocab::REFERERS`]).
    pub referers: Skewed,
    /// Services ([`vocab::SERVICES`]).
    pub services: Skewed,
    /// Stack traces of the Java log.
    pub stacks: Vec<Stack>,
    /// Skewed choice among `stacks`.
    pub stack_sel: Skewed,
}

fn ipv4(rng: &mut impl RngCore, internal: bool) -> String {
    let b = rng.next_u32().to_be_bytes();
    if internal {
        format!("10.{}.{}.{}", b[0] % 16, b[1], b[2].max(1))
    } else {
        // Public-looking, avoiding 0, 10, 127 and the multicast/reserved ranges.
        let first = 11 + b[3] % 212;
        let first = if first == 127 { 128 } else { first };
        format!("{first}.{}.{}.{}", b[0], b[1], b[2].max(1))
    }
}

fn render_url(rng: &mut impl RngCore, template: &str) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = open + rest[open..].find('}').unwrap_or(rest.len() - open - 1);
        match &rest[open + 1..close] {
            "id" => out.push_str(&(1000 + rng.next_u32() % 90_000).to_string()),
            "n" => out.push_str(&(1 + rng.next_u32() % 12).to_string()),
            "hex" => out.push_str(&format!("{:08x}", rng.next_u32())),
            _ => out.push_str(vocab::WORDS[rng.next_u32() as usize % vocab::WORDS.len()]),
        }
        rest = &rest[(close + 1).min(rest.len())..];
    }
    out.push_str(rest);
    out
}

fn render_stack(rng: &mut impl RngCore, logger: usize) -> String {
    let mut t = String::with_capacity(1200);
    let (class, msg) = vocab::EXCEPTIONS[rng.next_u32() as usize % vocab::EXCEPTIONS.len()];
    t.push('\n');
    t.push_str(class);
    t.push_str(": ");
    t.push_str(msg);
    let frame = |t: &mut String, rng: &mut dyn RngCore, logger: &str| {
        let simple = logger.rsplit('.').next().unwrap_or(logger);
        let method = vocab::METHODS[rng.next_u32() as usize % vocab::METHODS.len()];
        let line = 20 + rng.next_u32() % 400;
        t.push_str(&format!("\n\tat {logger}.{method}({simple}.java:{line})"));
    };
    frame(&mut t, rng, vocab::LOGGERS[logger]);
    for _ in 0..2 + rng.next_u32() % 4 {
        let other = vocab::LOGGERS[rng.next_u32() as usize % vocab::LOGGERS.len()];
        frame(&mut t, rng, other);
    }
    let skip = rng.next_u32() as usize % 3;
    for f in &vocab::FRAMEWORK_FRAMES[skip..] {
        t.push_str("\n\tat ");
        t.push_str(f);
    }
    if !rng.next_u32().is_multiple_of(3) {
        let (cause, cmsg) = vocab::CAUSES[rng.next_u32() as usize % vocab::CAUSES.len()];
        t.push_str(&format!("\nCaused by: {cause}: {cmsg}"));
        for _ in 0..1 + rng.next_u32() % 3 {
            let other = vocab::LOGGERS[rng.next_u32() as usize % vocab::LOGGERS.len()];
            frame(&mut t, rng, other);
        }
        let more = vocab::FRAMEWORK_FRAMES.len() - skip + 2;
        t.push_str(&format!("\n\t... {more} more"));
    }
    t
}

impl Pools {
    /// Builds every pool from `rng` for `hosts` hosts (at least one).
    pub fn new(rng: &mut impl RngCore, hosts: u32) -> Pools {
        let n = hosts.max(1) as usize;
        let width = n.to_string().len().max(3);
        let role = |i: usize| match i % 5 {
            0 | 1 => "web",
            2 | 3 => "app",
            _ => "db",
        };
        let names: Vec<String> = (0..n)
            .map(|i| format!("{}-{:0width$}", role(i), i + 1))
            .collect();
        let set = |want: Option<&[&str]>| {
            let mut ids: Vec<u32> = (0..n)
                .filter(|&i| want.is_none_or(|w| w.contains(&role(i))))
                .map(|i| i as u32)
                .collect();
            if ids.is_empty() {
                ids = (0..n as u32).collect();
            }
            let sel = Skewed::zipf(ids.len(), 0.8);
            HostSet { ids, sel }
        };
        // Indexed by `Kind as usize`: syslog from every host, access from web servers, the
        // application logs from application servers.
        let host_sets = [
            set(None),
            set(Some(&["web"])),
            set(Some(&["app"])),
            set(Some(&["app"])),
        ];
        let boot_secs = (0..n)
            .map(|_| 3_600 + u64::from(rng.next_u32() % 5_000_000))
            .collect();

        let client_ips = (0..CLIENT_IPS).map(|i| ipv4(rng, i % 7 == 3)).collect();
        let attacker_ips = (0..ATTACKER_IPS).map(|_| ipv4(rng, false)).collect();
        let weights: Vec<f64> = vocab::URL_TEMPLATES.iter().map(|t| t.2).collect();
        let template = Skewed::weighted(&weights);
        let urls = (0..URLS)
            .map(|i| {
                // The most popular ranks are one URL per template, in template order.
                let t = if i < vocab::URL_TEMPLATES.len() {
                    i
                } else {
                    template.pick(rng.next_u64())
                };
                let (method, path, _) = vocab::URL_TEMPLATES[t];
                Url {
                    method,
                    path: render_url(rng, path),
                }
            })
            .collect();
        let stacks = (0..STACKS)
            .map(|_| {
                let logger = rng.gen_range(0..vocab::LOGGERS.len());
                Stack {
                    logger,
                    text: render_stack(rng, logger),
                }
            })
            .collect();
        let weights = |w: &[(u16, f64)]| w.iter().map(|x| x.1).collect::<Vec<_>>();
        Pools {
            hosts: names,
            host_sets,
            boot_secs,
            users: Skewed::zipf(vocab::USERS.len(), 1.0),
            client_ips,
            client_sel: Skewed::zipf(CLIENT_IPS, 1.05),
            attacker_ips,
            attacker_sel: Skewed::zipf(ATTACKER_IPS, 1.2),
            urls,
            url_sel: Skewed::zipf(URLS, 1.0),
            statuses: Skewed::weighted(&weights(vocab::STATUSES)),
            agents: Skewed::zipf(vocab::USER_AGENTS.len(), 1.2),
            referers: Skewed::zipf(vocab::REFERERS.len(), 1.3),
            services: Skewed::zipf(vocab::SERVICES.len(), 0.9),
            stacks,
            stack_sel: Skewed::zipf(STACKS, 1.1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Kind;
    use rand::SeedableRng;

    #[test]
    fn hosts_have_roles_and_fallback() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let p = Pools::new(&mut rng, 200);
        assert_eq!(p.hosts.len(), 200);
        assert_eq!(p.hosts[0], "web-001");
        assert!(p.host_sets[Kind::Access as usize]
            .ids
            .iter()
            .all(|&i| p.hosts[i as usize].starts_with("web-")));
        assert!(p.host_sets[Kind::Java as usize]
            .ids
            .iter()
            .all(|&i| p.hosts[i as usize].starts_with("app-")));
        let p = Pools::new(&mut rng, 1);
        assert_eq!(p.host_sets[Kind::Java as usize].ids, vec![0]);
    }

    #[test]
    fn urls_are_rendered_without_placeholders() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
        let p = Pools::new(&mut rng, 10);
        assert!(p
            .urls
            .iter()
            .all(|u| u.path.starts_with('/') && !u.path.contains('{')));
        assert!(p
            .stacks
            .iter()
            .all(|s| s.text.starts_with('\n') && !s.text.ends_with('\n')));
    }
}
