//! The client's address behind proxies: the socket peer, unless it is one of our trusted proxies — then
//! the right-most `X-Forwarded-For` hop that is not (every hop left of it was written by the client, who
//! can claim anything).

use std::net::IpAddr;
use std::str::FromStr;

use ipnet::IpNet;

/// `TRUSTED_PROXIES`: the networks of our own proxies and load balancers (CIDRs or single addresses,
/// comma-separated). Empty: trust no `X-Forwarded-For` at all.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl FromStr for TrustedProxies {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| {
                p.parse::<IpNet>()
                    .or_else(|_| p.parse::<IpAddr>().map(IpNet::from))
                    .map_err(|_| format!("`{p}` is not a network (10.0.0.0/8) or an address (10.0.0.1)"))
            })
            .collect::<Result<_, _>>()
            .map(Self)
    }
}

impl TrustedProxies {
    /// Whether `ip` is one of our proxies.
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        self.0.iter().any(|net| net.contains(&ip))
    }

    /// The client of a request that reached us from `peer` carrying these `X-Forwarded-For` values (in
    /// header order). Each trusted proxy appends the address it received from; reading right to left, the
    /// first address that is not a trusted proxy is the client. A hop that does not parse ends the walk.
    pub fn client<'a>(&self, peer: IpAddr, forwarded: impl IntoIterator<Item = &'a str>) -> IpAddr {
        let peer = canonical(peer);
        if !self.contains(peer) {
            return peer;
        }
        let hops: Vec<&str> = forwarded.into_iter().flat_map(|v| v.split(',')).map(str::trim).collect();
        let mut client = peer;
        for hop in hops.iter().rev() {
            let Some(ip) = parse_hop(hop) else { return client };
            client = ip;
            if !self.contains(ip) {
                return ip;
            }
        }
        client
    }
}

/// The part of a client's address that per-address budgets count: an IPv4 address, or the /64 of an
/// IPv6 address — one subscriber is handed a whole /64 and can pick a fresh address in it per request.
pub fn budget_network(ip: IpAddr) -> String {
    match canonical(ip) {
        IpAddr::V6(v6) => format!("{}/64", std::net::Ipv6Addr::from(u128::from(v6) & (u128::MAX << 64))),
        IpAddr::V4(v4) => dotted(v4),
    }
}

/// `1.2.3.4`, written digit by digit: `Display` goes through the formatting machinery, which callgrind
/// counted at 1,300 instructions of every grab (its per-address budget reads the address).
fn dotted(v4: std::net::Ipv4Addr) -> String {
    let mut out = String::with_capacity(15);
    for (i, octet) in v4.octets().into_iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        if octet >= 100 {
            out.push(char::from(b'0' + octet / 100));
        }
        if octet >= 10 {
            out.push(char::from(b'0' + octet / 10 % 10));
        }
        out.push(char::from(b'0' + octet % 10));
    }
    out
}

/// An address as proxies write it: `1.2.3.4`, `1.2.3.4:5678`, `2001:db8::1`, `[2001:db8::1]:5678`.
fn parse_hop(hop: &str) -> Option<IpAddr> {
    if let Ok(ip) = hop.parse::<IpAddr>() {
        return Some(canonical(ip));
    }
    hop.parse::<std::net::SocketAddr>().ok().map(|s| canonical(s.ip()))
}

/// IPv4 seen through an IPv6 socket (`::ffff:1.2.3.4`) is the IPv4 address.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ipv4_address_is_written_as_display_writes_it() {
        for ip in ["0.0.0.0", "1.2.3.4", "9.10.99.100", "127.0.0.1", "192.168.255.250", "255.255.255.255", "10.0.100.7"]
        {
            let v4: std::net::Ipv4Addr = ip.parse().unwrap();
            assert_eq!(dotted(v4), v4.to_string());
            assert_eq!(budget_network(IpAddr::V4(v4)), ip);
        }
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn a_client_cannot_pick_its_address_by_writing_the_header() {
        let proxies: TrustedProxies = "10.0.0.0/8, 192.168.1.7".parse().unwrap();
        // The client wrote "6.6.6.6"; our proxy appended the address it saw.
        assert_eq!(proxies.client(ip("10.0.0.2"), ["6.6.6.6, 203.0.113.9"]), ip("203.0.113.9"));
        // Two of our proxies in a row, the header split over two lines.
        assert_eq!(proxies.client(ip("192.168.1.7"), ["6.6.6.6", "203.0.113.9, 10.1.2.3"]), ip("203.0.113.9"));
        // Not from a proxy of ours: the header is the client's own words.
        assert_eq!(proxies.client(ip("198.51.100.4"), ["6.6.6.6"]), ip("198.51.100.4"));
        // No proxies configured: never believed.
        assert_eq!(TrustedProxies::default().client(ip("10.0.0.2"), ["6.6.6.6"]), ip("10.0.0.2"));
    }

    #[test]
    fn odd_hops_end_the_walk_at_the_last_address_that_made_sense() {
        let proxies: TrustedProxies = "10.0.0.0/8".parse().unwrap();
        assert_eq!(proxies.client(ip("10.0.0.2"), ["unknown, 10.0.0.5"]), ip("10.0.0.5"));
        assert_eq!(proxies.client(ip("10.0.0.2"), ["[2001:db8::1]:443"]), ip("2001:db8::1"));
        assert_eq!(proxies.client(ip("10.0.0.2"), ["203.0.113.9:5678"]), ip("203.0.113.9"));
        assert_eq!(proxies.client(ip("::ffff:10.0.0.2"), ["203.0.113.9"]), ip("203.0.113.9"));
        assert_eq!(proxies.client(ip("10.0.0.2"), Vec::<&str>::new()), ip("10.0.0.2"));
    }

    #[test]
    fn the_setting_names_what_it_cannot_read() {
        let err = "10.0.0.0/8, proxy.local".parse::<TrustedProxies>().unwrap_err();
        assert!(err.contains("proxy.local"), "{err}");
        assert_eq!("".parse::<TrustedProxies>().unwrap(), TrustedProxies::default());
    }
}
