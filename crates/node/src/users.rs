//! Users of the REST API, in `$LODE_HOME/etc/auth/users.conf` (mode 0600): one stanza per user
//! with an argon2id password hash (salted, slow), roles and contact details.
//!
//! ```text
//! [admin]
//! password = $argon2id$v=19$m=19456,t=2,p=1$…
//! roles = admin
//! realname = Administrator
//! ```
//!
//! The first start of a server creates `admin` when there is no user: with the password in
//! `$LODE_ADMIN_PASSWORD` (or Splunk's `$SPLUNK_PASSWORD`), else a random one printed once.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use lode_conf::ConfFile;
use rand::rngs::OsRng;
use rand::RngCore;

use crate::{Home, NodeError};

/// The file, relative to the home.
pub const USERS_CONF: &str = "etc/auth/users.conf";
/// Environment variables giving the first admin's password, in order.
pub const ADMIN_PASSWORD_ENV: [&str; 2] = ["LODE_ADMIN_PASSWORD", "SPLUNK_PASSWORD"];

/// Splunk's built-in roles (custom ones are in [`crate::roles`]).
pub use crate::roles::BUILTIN_ROLES;

/// One user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    /// Login name.
    pub name: String,
    /// argon2id PHC string.
    pub password_hash: String,
    /// Role names.
    pub roles: Vec<String>,
    /// Full name.
    pub realname: String,
    /// E-mail address.
    pub email: String,
}

/// Every user.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Users {
    /// In file order.
    pub users: Vec<User>,
}

/// The argon2id hash of `password` with a fresh random salt.
pub fn hash_password(password: &str) -> Result<String, NodeError> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| NodeError::Config(format!("hashing a password failed: {e}")))
}

/// Whether `password` matches `hash` (a malformed hash never matches).
pub fn check_password(hash: &str, password: &str) -> bool {
    PasswordHash::new(hash)
        .map(|h| {
            Argon2::default()
                .verify_password(password.as_bytes(), &h)
                .is_ok()
        })
        .unwrap_or(false)
}

/// A random password of 20 letters and digits.
pub fn random_password() -> String {
    const ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    let mut bytes = [0u8; 20];
    OsRng.fill_bytes(&mut bytes);
    bytes
        .iter()
        .map(|b| ALPHABET[*b as usize % ALPHABET.len()] as char)
        .collect()
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '@'))
}

impl Users {
    /// The file of `home`.
    pub fn path(home: &Home) -> std::path::PathBuf {
        home.root().join(USERS_CONF)
    }

    /// Loads the users of `home`; a missing file means none.
    pub fn load(home: &Home) -> Result<Users, NodeError> {
        let path = Self::path(home);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Users::default()),
            Err(e) => return Err(NodeError::Io(format!("reading {}: {e}", path.display()))),
        };
        let origin = path.display().to_string();
        let file = ConfFile::parse(&text, &origin).map_err(|e| NodeError::Config(e.to_string()))?;
        let mut users = Users::default();
        for s in file.stanzas() {
            if s.name == lode_conf::DEFAULT_STANZA && s.is_empty() {
                continue;
            }
            let password_hash = s
                .get("password")
                .filter(|p| p.starts_with("$argon2"))
                .ok_or_else(|| {
                    NodeError::Config(format!("{origin}: [{}] has no argon2 password", s.name))
                })?
                .to_string();
            users.users.push(User {
                name: s.name.clone(),
                password_hash,
                roles: s
                    .get("roles")
                    .unwrap_or("user")
                    .split(',')
                    .map(|r| r.trim().to_string())
                    .filter(|r| !r.is_empty())
                    .collect(),
                realname: s.get("realname").unwrap_or_default().to_string(),
                email: s.get("email").unwrap_or_default().to_string(),
            });
        }
        Ok(users)
    }

    /// Writes the file atomically with mode 0600.
    pub fn save(&self, home: &Home) -> Result<(), NodeError> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let path = Self::path(home);
        let io = |e: std::io::Error| NodeError::Io(format!("writing {}: {e}", path.display()));
        std::fs::create_dir_all(path.parent().expect("has a parent")).map_err(io)?;
        let mut text = String::from("# Lode users (REST API). Passwords are argon2id hashes.\n");
        for u in &self.users {
            for v in [&u.realname, &u.email] {
                if v.contains(['\n', '\r']) {
                    return Err(NodeError::Config("user details must be one line".into()));
                }
            }
            text += &format!(
                "\n[{}]\npassword = {}\nroles = {}\nrealname = {}\nemail = {}\n",
                u.name,
                u.password_hash,
                u.roles.join(", "),
                u.realname,
                u.email
            );
        }
        let tmp = path.with_extension("conf.tmp");
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)
            .map_err(io)?;
        f.write_all(text.as_bytes())
            .and_then(|_| f.sync_all())
            .map_err(io)?;
        std::fs::rename(&tmp, &path).map_err(io)
    }

    /// The user `name`.
    pub fn get(&self, name: &str) -> Option<&User> {
        self.users.iter().find(|u| u.name == name)
    }

    /// The user `name` if `password` is theirs.
    pub fn authenticate(&self, name: &str, password: &str) -> Option<&User> {
        self.get(name)
            .filter(|u| !password.is_empty() && check_password(&u.password_hash, password))
    }

    /// Adds a user with `password` (hashed here).
    pub fn add(&mut self, name: &str, password: &str, roles: &[&str]) -> Result<(), NodeError> {
        if !valid_name(name) {
            return Err(NodeError::Config(format!(
                "invalid user name '{name}': use letters, digits, '_', '-', '.', '@'"
            )));
        }
        if self.get(name).is_some() {
            return Err(NodeError::Config(format!("user '{name}' exists already")));
        }
        if password.len() < 8 {
            return Err(NodeError::Config(
                "a password needs at least 8 characters".into(),
            ));
        }
        self.users.push(User {
            name: name.to_string(),
            password_hash: hash_password(password)?,
            roles: roles.iter().map(|r| r.to_string()).collect(),
            realname: String::new(),
            email: String::new(),
        });
        Ok(())
    }

    /// Creates `admin` when `home` has no user yet. Returns the password when it was generated
    /// (to be shown once), `None` when it came from the environment or users existed.
    pub fn ensure_admin(home: &Home) -> Result<Option<String>, NodeError> {
        let mut users = Users::load(home)?;
        if !users.users.is_empty() {
            return Ok(None);
        }
        let from_env = ADMIN_PASSWORD_ENV
            .iter()
            .find_map(|v| std::env::var(v).ok().filter(|p| !p.is_empty()));
        let (password, generated) = match from_env {
            Some(p) => (p, false),
            None => (random_password(), true),
        };
        users.add("admin", &password, &["admin"])?;
        users.users[0].realname = "Administrator".into();
        users.save(home)?;
        Ok(generated.then_some(password))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_salted_and_verify() {
        let a = hash_password("correct horse").unwrap();
        let b = hash_password("correct horse").unwrap();
        assert_ne!(a, b);
        assert!(a.starts_with("$argon2id$"));
        assert!(check_password(&a, "correct horse"));
        assert!(!check_password(&a, "wrong"));
        assert!(!check_password("garbage", "x"));
    }

    #[test]
    fn save_load_authenticate() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::new(dir.path());
        let mut u = Users::default();
        u.add("ann", "password1", &["user"]).unwrap();
        assert!(u.add("ann", "password2", &["user"]).is_err());
        assert!(u.add("bad name", "password2", &["user"]).is_err());
        assert!(u.add("bob", "short", &["user"]).is_err());
        u.save(&home).unwrap();
        let back = Users::load(&home).unwrap();
        assert_eq!(back, u);
        assert!(back.authenticate("ann", "password1").is_some());
        assert!(back.authenticate("ann", "nope").is_none());
        assert!(back.authenticate("ann", "").is_none());
        assert!(back.authenticate("zed", "password1").is_none());
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(Users::path(&home))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn first_admin_once() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::new(dir.path());
        let first = Users::ensure_admin(&home).unwrap();
        // Either generated (printed once) or from the environment of the test run.
        let users = Users::load(&home).unwrap();
        assert_eq!(users.users.len(), 1);
        assert_eq!(users.users[0].roles, vec!["admin"]);
        if let Some(p) = first {
            assert!(users.authenticate("admin", &p).is_some());
        }
        assert_eq!(Users::ensure_admin(&home).unwrap(), None);
    }
}
