//! Network functions: `cidrmatch(subnet, ip)` for IPv4 and IPv6.

use crate::error::SearchError;
use crate::value::Value;
use std::net::IpAddr;

/// A subnet: an address and a prefix length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    /// The network address.
    addr: IpAddr,
    /// Leading bits that must match (0..=32 for IPv4, 0..=128 for IPv6).
    bits: u8,
}

impl Cidr {
    /// Parses `10.0.0.0/8`, `2001:db8::/32`, or a bare address (all bits).
    pub fn parse(s: &str) -> Option<Cidr> {
        let s = s.trim();
        let (addr, bits) = match s.split_once('/') {
            Some((a, b)) => (a, Some(b)),
            None => (s, None),
        };
        let addr: IpAddr = addr.parse().ok()?;
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let bits = match bits {
            Some(b) if !b.is_empty() && b.bytes().all(|c| c.is_ascii_digit()) => b.parse().ok()?,
            Some(_) => return None,
            None => max,
        };
        (bits <= max).then_some(Cidr { addr, bits })
    }

    /// Whether `ip` is inside the subnet (an IPv4 address never matches an IPv6 subnet, except
    /// in its IPv4-mapped form `::ffff:a.b.c.d`).
    pub fn contains(&self, ip: IpAddr) -> bool {
        let (net, ip, width) = match (self.addr, ip) {
            (IpAddr::V4(n), IpAddr::V4(i)) => (u32::from(n) as u128, u32::from(i) as u128, 32),
            (IpAddr::V6(n), IpAddr::V6(i)) => (u128::from(n), u128::from(i), 128),
            (IpAddr::V4(n), IpAddr::V6(i)) => match i.to_ipv4_mapped() {
                Some(i) => (u32::from(n) as u128, u32::from(i) as u128, 32),
                None => return false,
            },
            (IpAddr::V6(_), IpAddr::V4(_)) => return false,
        };
        let shift = width - u32::from(self.bits);
        shift >= width || (net >> shift) == (ip >> shift)
    }
}

/// Calls the network function `name`, or returns `None` if it is not one of them.
pub fn call(name: &str, v: &[Value]) -> Option<Result<Value, SearchError>> {
    if name != "cidrmatch" {
        return None;
    }
    if v[0].is_null() || v[1].is_null() {
        return Some(Ok(Value::Null));
    }
    let Some(net) = Cidr::parse(&v[0].as_str()) else {
        return Some(Ok(Value::Bool(false)));
    };
    // A multivalue address field matches when one of its values does.
    let hit = v[1]
        .iter_values()
        .filter_map(|x| x.as_str().trim().parse::<IpAddr>().ok())
        .any(|ip| net.contains(ip));
    Some(Ok(Value::Bool(hit)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(net: &str, ip: &str) -> bool {
        Cidr::parse(net).unwrap().contains(ip.parse().unwrap())
    }

    #[test]
    fn ipv4_and_ipv6_subnets() {
        assert!(m("10.0.0.0/8", "10.200.1.1"));
        assert!(!m("10.0.0.0/8", "11.0.0.1"));
        assert!(m("192.168.1.0/24", "192.168.1.255"));
        assert!(!m("192.168.1.0/25", "192.168.1.128"));
        assert!(m("0.0.0.0/0", "8.8.8.8"));
        assert!(m("1.2.3.4", "1.2.3.4"));
        assert!(m("2001:db8::/32", "2001:db8:ffff::1"));
        assert!(!m("2001:db8::/32", "2001:db9::1"));
        assert!(m("::/0", "::1"));
        assert!(m("10.0.0.0/8", "::ffff:10.1.2.3"));
        assert!(!m("2001:db8::/32", "10.0.0.1"));
        for bad in [
            "10.0.0.0/33",
            "10.0.0/8",
            "x/8",
            "10.0.0.0/",
            "::/129",
            "1.2.3.4/-1",
        ] {
            assert!(Cidr::parse(bad).is_none(), "{bad}");
        }
    }
}
