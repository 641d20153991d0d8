//! HTTP Basic credentials verified recently. A password check is argon2id (~35 ms of CPU and
//! 19 MiB here, slow by design) and ran on every request that sent Basic credentials, as
//! `curl -u` and many scripts do: such a client got at most ~30 answers a second per core,
//! and each check held a reactor thread. As Elasticsearch's realm cache does, a verified
//! user and password pair is remembered for [`BASIC_MEMORY`], by a salted SHA-256 digest (never
//! the password), together with the stored hash it matched: a changed password or a removed
//! user no longer matches the entry.

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
    /// Whether `password` is `user`'s: from a match remembered within [`BASIC_MEMORY`] against
    /// the same stored hash, else checked (and a match remembered). An empty password never is.
    pub fn verify(&self, user: &User, password: &str) -> bool {
        if password.is_empty() {
            return false;
        }
        let key = self.digest(&user.name, password);
        let now = Instant::now();
        let held = |seen: &HashMap<[u8; 32], (String, Instant)>| {
            seen.get(&key).is_some_and(|(hash, at)| {
                *hash == user.password_hash && now.duration_since(*at) < BASIC_MEMORY
            })
        };
        if held(&self.seen()) {
            return true;
        }
        if !check_password(&user.password_hash, password) {
            return false;
        }
        self.remember(key, &user.password_hash, now);
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

#[cfg(test)]
mod tests {
    use super::*;
    use lode_node::users::hash_password;

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
        assert!(!cache.verify(&ann, "wrong"));
        assert!(!cache.verify(&ann, ""));
        assert_eq!(cache.held(), 0, "failures are not remembered");
        assert!(cache.verify(&ann, "password1"));
        assert!(cache.verify(&ann, "password1"));
        assert_eq!(cache.held(), 1);
        assert!(!cache.verify(&ann, "password2"));
        // The password changed: the remembered pair matched the old hash.
        let changed = user("ann", "password2");
        assert!(!cache.verify(&changed, "password1"));
        assert!(cache.verify(&changed, "password2"));
        // Another user with the same password is checked on its own.
        let bob = user("bob", "password9");
        assert!(!cache.verify(&bob, "password1"));
    }

    #[test]
    fn a_remembered_pair_is_taken_without_the_check() {
        let cache = BasicCache::default();
        let ann = user("ann", "password1");
        assert!(cache.verify(&ann, "password1"));
        // A stored hash no check can pass: only the remembered pair answers yes.
        let key = cache.digest("ann", "password1");
        let bogus = User {
            password_hash: "not a hash".into(),
            ..ann.clone()
        };
        cache.remember(key, &bogus.password_hash, Instant::now());
        assert!(cache.verify(&bogus, "password1"));
        // Too old: checked again, and the check fails.
        let old = Instant::now().checked_sub(BASIC_MEMORY + Duration::from_secs(1));
        if let Some(old) = old {
            cache.remember(key, &bogus.password_hash, old);
            assert!(!cache.verify(&bogus, "password1"));
        }
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
        assert!(cache.verify(&ann, "password1"));
        assert!(cache.held() <= BASIC_HELD);
    }
}
