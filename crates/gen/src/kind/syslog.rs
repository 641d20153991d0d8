//! RFC 3164 syslog lines from sshd, CRON, the kernel, systemd and sudo.

use super::{push_tags_kv, range, uniform, EventCtx};
use crate::pools::Pools;
use crate::text::{push_padded, push_u64};
use crate::vocab::USERS;
use rand::RngCore;
use rand_chacha::ChaCha8Rng;

const CRON_CMDS: &[&str] = &[
    "(root) CMD (   cd / && run-parts --report /etc/cron.hourly)",
    "(root) CMD (command -v debian-sa1 > /dev/null && debian-sa1 1 1)",
    "(www-data) CMD (php /var/www/app/artisan schedule:run >> /dev/null 2>&1)",
    "pam_unix(cron:session): session opened for user root(uid=0) by (uid=0)",
    "pam_unix(cron:session): session closed for user root",
];

const KERNEL_MSGS: &[&str] = &[
    "TCP: request_sock_TCP: Possible SYN flooding on port 443. Sending cookies.  Check SNMP counters.",
    "EXT4-fs (nvme0n1p1): re-mounted. Opts: (null). Quota mode: none.",
    "[UFW BLOCK] IN=eth0 OUT= MAC=02:42:ac:11:00:02 SRC=198.51.100.23 DST=10.0.0.5 LEN=60 PROTO=TCP SPT=44321 DPT=22 SYN",
    "nf_conntrack: nf_conntrack: table full, dropping packet",
    "Out of memory: Killed process 31337 (java) total-vm:8123456kB, anon-rss:4012345kB, file-rss:0kB",
    "e1000e: eth0 NIC Link is Up 1000 Mbps Full Duplex, Flow Control: Rx/Tx",
];

const UNITS: &[&str] = &[
    "nginx.service",
    "docker.service",
    "apt-daily.service",
    "logrotate.service",
    "sshd.service",
    "node-exporter.service",
];

fn prog(out: &mut Vec<u8>, name: &[u8], pid: u64) {
    out.extend_from_slice(name);
    out.push(b'[');
    push_u64(out, pid);
    out.extend_from_slice(b"]: ");
}

fn sshd(out: &mut Vec<u8>, rng: &mut ChaCha8Rng, p: &Pools) {
    prog(out, b"sshd", range(rng, 1_000, 60_000));
    let r = rng.next_u32() % 100;
    let user = USERS[p.users.pick(rng.next_u64())].as_bytes();
    let attacker = p.attacker_ips[p.attacker_sel.pick(rng.next_u64())].as_bytes();
    let client = p.client_ips[p.client_sel.pick(rng.next_u64())].as_bytes();
    let port = range(rng, 1_024, 64_000);
    let (head, ip, tail): (&[u8], &[u8], &[u8]) = match r {
        0..=34 => (b"Failed password for invalid user ", attacker, b" ssh2"),
        35..=49 => (b"Failed password for ", attacker, b" ssh2"),
        50..=59 => (b"Invalid user ", attacker, b""),
        60..=69 => (
            b"Accepted publickey for ",
            client,
            b" ssh2: ED25519 SHA256:kq3Zp8VfXo2bT1",
        ),
        70..=74 => (b"Accepted password for ", client, b" ssh2"),
        75..=84 => {
            out.extend_from_slice(b"pam_unix(sshd:session): session opened for user ");
            out.extend_from_slice(user);
            out.extend_from_slice(b"(uid=1000) by (uid=0)");
            return;
        }
        85..=94 => {
            out.extend_from_slice(b"pam_unix(sshd:session): session closed for user ");
            out.extend_from_slice(user);
            return;
        }
        _ => {
            out.extend_from_slice(b"Received disconnect from ");
            out.extend_from_slice(client);
            out.extend_from_slice(b" port ");
            push_u64(out, port);
            out.extend_from_slice(b":11: disconnected by user");
            return;
        }
    };
    out.extend_from_slice(head);
    out.extend_from_slice(user);
    out.extend_from_slice(b" from ");
    out.extend_from_slice(ip);
    out.extend_from_slice(b" port ");
    push_u64(out, port);
    out.extend_from_slice(tail);
}

/// Appends one syslog line (without newline).
pub fn write(out: &mut Vec<u8>, rng: &mut ChaCha8Rng, p: &Pools, ev: &EventCtx) {
    ev.civil.push_syslog(out);
    out.push(b' ');
    out.extend_from_slice(p.hosts[ev.host].as_bytes());
    out.push(b' ');
    match rng.next_u32() % 100 {
        0..=39 => sshd(out, rng, p),
        40..=54 => {
            prog(out, b"CRON", range(rng, 1_000, 60_000));
            out.extend_from_slice(uniform(rng, CRON_CMDS).as_bytes());
        }
        55..=69 => {
            // `kernel: [ uptime.micros] message`
            out.extend_from_slice(b"kernel: [");
            let up = p.boot_secs[ev.host] * 1_000_000 + ev.elapsed_us.max(0) as u64;
            push_padded(out, up / 1_000_000, 5, b' ');
            out.push(b'.');
            push_padded(out, up % 1_000_000, 6, b'0');
            out.extend_from_slice(b"] ");
            out.extend_from_slice(uniform(rng, KERNEL_MSGS).as_bytes());
        }
        70..=89 => {
            prog(out, b"systemd", 1);
            let unit = uniform(rng, UNITS).as_bytes();
            match rng.next_u32() % 4 {
                0 => {
                    out.extend_from_slice(b"Started Session ");
                    push_u64(out, range(rng, 1, 90_000));
                    out.extend_from_slice(b" of User ");
                    out.extend_from_slice(USERS[p.users.pick(rng.next_u64())].as_bytes());
                    out.push(b'.');
                }
                1 => {
                    out.extend_from_slice(unit);
                    out.extend_from_slice(b": Main process exited, code=exited, status=1/FAILURE");
                }
                2 => {
                    out.extend_from_slice(b"Starting ");
                    out.extend_from_slice(unit);
                    out.extend_from_slice(b"...");
                }
                _ => {
                    out.extend_from_slice(unit);
                    out.extend_from_slice(b": Deactivated successfully.");
                }
            }
        }
        _ => {
            out.extend_from_slice(b"sudo:   ");
            let user = USERS[p.users.pick(rng.next_u64())].as_bytes();
            out.extend_from_slice(user);
            out.extend_from_slice(b" : TTY=pts/");
            push_u64(out, range(rng, 0, 8));
            if user == b"root" {
                out.extend_from_slice(b" ; PWD=/root");
            } else {
                out.extend_from_slice(b" ; PWD=/home/");
                out.extend_from_slice(user);
            }
            out.extend_from_slice(b" ; USER=root ; COMMAND=/usr/bin/systemctl restart ");
            out.extend_from_slice(uniform(rng, UNITS).as_bytes());
        }
    }
    push_tags_kv(out, &ev.tags);
}
