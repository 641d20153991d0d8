//! HTTP Basic credentials verified recently. A password check is argon2id (~35 ms of CPU and
//! 19 MiB here, slow by design) and ran on every request that sent Basic credentials, as
//! `curl -u` and many scripts do: such a client got at most ~30 answers a second per core,
//! and each check held a reactor thread. As Elasticsearch's realm cache does, a verified
//! user and password pair is remembered for [`BASIC_MEMORY`], by a salted SHA-256 digest (never
//! the password), together with the stored hash it matched: a changed password or a removed
//! user no longer matches the entry.
//!
//! [`Failures`] counts failed password checks per user name for `/services/auth/login` and
//! Basic credentials alike: each recent failure doubles the wait before the name's next check.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use lode_node::users::{check_password, User};
use sha2::{Digest, Sha256};

/// How long a verified pair is taken without a new check.
pub const BASIC_MEMORY: Duration = Duration::from_secs(300);
/// Pairs remembered at most; all are forgotten when a new one would pass it.
pub const BASIC_HELD: usize = 1024;

/// Recently verified Basic credentials.
pub struct BasicCache {
    /// Random per process, so digests are not comparable across processes.
    salt: [u8; 32],
    /// Digest of user and password → the stored password hash it matched, and when.
    seen: Mutex<HashMap<[u8; 32], (String, Instant)>>,
}

impl Default for BasicCache {
    fn default() -> BasicCache {
        let mut salt = [0u8; 32];
        salt[..16].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
        salt[16..].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
        BasicCache {
            salt,
            seen: Mutex::default(),
        }
    }
}

impl BasicCache {
    /// Whether `password` is `user`'s by a match remembered within [`BASIC_MEMORY`] against
    /// the same stored hash, without a check. An empty password never is.
    pub fn remembered(&self, user: &User, password: &str) -> bool {
        if password.is_empty() {
            return false;
        }
        let key = self.digest(&user.name, password);
        let now = Instant::now();
        self.seen().get(&key).is_some_and(|(hash, at)| {
            *hash == user.password_hash && now.duration_since(*at) < BASIC_MEMORY
        })
    }

    /// Whether `password` is `user`'s, checked against the stored hash (a match is remembered).
    /// An empty password never is.
    pub fn check(&self, user: &User, password: &str) -> bool {
        if password.is_empty() || !check_password(&user.password_hash, password) {
            return false;
        }
        let key = self.digest(&user.name, password);
        self.remember(key, &user.password_hash, Instant::now());
        true
    }

    /// Remembers that digest `key` matched `hash` at `at`, forgetting every pair first when
    /// [`BASIC_HELD`] are held.
    fn remember(&self, key: [u8; 32], hash: &str, at: Instant) {
        let mut seen = self.seen();
        if seen.len() >= BASIC_HELD {
            seen.clear();
        }
        seen.insert(key, (hash.to_string(), at));
    }

    /// Pairs held (for tests).
    pub fn held(&self) -> usize {
        self.seen().len()
    }

    fn seen(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], (String, Instant)>> {
        self.seen.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// SHA-256 of the salt, the user's name and the password, each length-prefixed.
    fn digest(&self, user: &str, password: &str) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(self.salt);
        for part in [user, password] {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        h.finalize().into()
    }
}

/// How long a failed password check counts towards a name's wait.
pub const FAILURE_MEMORY: Duration = Duration::from_secs(300);
/// Names whose failures are counted at most; those older than [`FAILURE_MEMORY`] are forgotten
/// when more would be held.
const FAILURES_HELD: usize = 100_000;

/// Recent failed password checks per user name: how many, and when the last was.
#[derive(Default)]
pub struct Failures {
    by_name: Mutex<HashMap<String, (u32, Instant)>>,
}

impl Failures {
    /// How long `name`'s next check must wait after its last failure: none after a first
    /// failure, 1 s after a second, doubling up to 16 s, while the failures are recent.
    pub fn wait(&self, name: &str) -> Duration {
        self.last(name).map_or(Duration::ZERO, |(wait, _)| wait)
    }

    /// Whether `name`'s last failure was less than [`Self::wait`] ago: a check now is refused
    /// without running it.
    pub fn waiting(&self, name: &str) -> bool {
        self.last(name)
            .is_some_and(|(wait, at)| at.elapsed() < wait)
    }

    /// The wait after `name`'s last failure, and when that failure was.
    fn last(&self, name: &str) -> Option<(Duration, Instant)> {
        let (n, at) = self.map().get(name).copied()?;
        (at.elapsed() < FAILURE_MEMORY && n > 1)
            .then(|| (Duration::from_millis(250 << n.min(6)), at))
    }

    /// Counts a failed check for `name`.
    pub fn note(&self, name: &str) {
        let mut m = self.map();
        if m.len() >= FAILURES_HELD {
            m.retain(|_, (_, at)| at.elapsed() < FAILURE_MEMORY);
        }
        let now = Instant::now();
        let e = m.entry(name.to_string()).or_insert((0, now));
        *e = (e.0.saturating_add(1), now);
    }

    /// Forgets `name`'s failures (a check passed).
    pub fn clear(&self, name: &str) {
        self.map().remove(name);
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, (u32, Instant)>> {
        self.by_name.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lode_node::users::hash_password;

    /// What `authenticate` asks: a remembered pair, else a check.
    fn verify(cache: &BasicCache, user: &User, password: &str) -> bool {
        cache.remembered(user, password) || cache.check(user, password)
    }

    fn user(name: &str, password: &str) -> User {
        User {
            name: name.into(),
            password_hash: hash_password(password).unwrap(),
            roles: vec!["admin".into()],
            realname: String::new(),
            email: String::new(),
        }
    }

    #[test]
    fn a_verified_pair_is_remembered_only_for_its_password_hash() {
        let cache = BasicCache::default();
        let ann = user("ann", "password1");
        assert!(!verify(&cache, &ann, "wrong"));
        assert!(!verify(&cache, &ann, ""));
        assert_eq!(cache.held(), 0, "failures are not remembered");
        assert!(verify(&cache, &ann, "password1"));
        assert!(verify(&cache, &ann, "password1"));
        assert_eq!(cache.held(), 1);
        assert!(!verify(&cache, &ann, "password2"));
        // The password changed: the remembered pair matched the old hash.
        let changed = user("ann", "password2");
        assert!(!verify(&cache, &changed, "password1"));
        assert!(verify(&cache, &changed, "password2"));
        // Another user with the same password is checked on its own.
        let bob = user("bob", "password9");
        assert!(!verify(&cache, &bob, "password1"));
    }

    #[test]
    fn a_remembered_pair_is_taken_without_the_check() {
        let cache = BasicCache::default();
        let ann = user("ann", "password1");
        assert!(verify(&cache, &ann, "password1"));
        // A stored hash no check can pass: only the remembered pair answers yes.
        let key = cache.digest("ann", "password1");
        let bogus = User {
            password_hash: "not a hash".into(),
            ..ann.clone()
        };
        cache.remember(key, &bogus.password_hash, Instant::now());
        assert!(verify(&cache, &bogus, "password1"));
        // Too old: checked again, and the check fails.
        let old = Instant::now().checked_sub(BASIC_MEMORY + Duration::from_secs(1));
        if let Some(old) = old {
            cache.remember(key, &bogus.password_hash, old);
            assert!(!verify(&cache, &bogus, "password1"));
        }
    }

    #[test]
    fn each_failure_doubles_the_wait_up_to_sixteen_seconds() {
        let f = Failures::default();
        assert!(f.wait("ann").is_zero() && !f.waiting("ann"));
        f.note("ann");
        assert!(f.wait("ann").is_zero(), "a first failure is free");
        let mut waits = Vec::new();
        for _ in 0..8 {
            f.note("ann");
            waits.push(f.wait("ann").as_millis());
        }
        assert_eq!(waits, [1000, 2000, 4000, 8000, 16000, 16000, 16000, 16000]);
        assert!(f.waiting("ann"));
        assert!(f.wait("bob").is_zero(), "names are counted apart");
        f.clear("ann");
        assert!(f.wait("ann").is_zero() && !f.waiting("ann"));
    }

    #[test]
    fn the_pairs_held_stay_within_their_bound() {
        let cache = BasicCache::default();
        let ann = user("ann", "password1");
        for i in 0..BASIC_HELD + 10 {
            let key = cache.digest("ann", &format!("p{i}"));
            cache.remember(key, &ann.password_hash, Instant::now());
            assert!(cache.held() <= BASIC_HELD);
        }
        assert!(verify(&cache, &ann, "password1"));
        assert!(cache.held() <= BASIC_HELD);
    }
}
