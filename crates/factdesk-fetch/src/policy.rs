//! The address policy that keeps fetches away from the user's own machine and networks.
//! URLs may come from a language model and must be treated as hostile: by default only public
//! internet addresses over http and https are fetched. A host is checked three times: its URL
//! before the request, the URL of every redirect hop, and the addresses its name resolves to,
//! at connect time (so a name that resolves to a public address when first checked and to a
//! private one later cannot slip through). Host names on the allow-list skip the checks.
//!
//! This module decides and explains; it does not send requests (that is the crate root).

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use url::{Host, Url};

/// Why an address is not fetched: the kind of network it belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AddressClass {
    /// 127.0.0.0/8, ::1, and the names `localhost` and `*.localhost`.
    Loopback,
    /// 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, and local-use NAT64 (64:ff9b:1::/48).
    Private,
    /// 100.64.0.0/10, shared by carrier-grade NAT.
    SharedAddressSpace,
    /// 169.254.0.0/16 (where cloud metadata services answer) and fe80::/10.
    LinkLocal,
    /// 224.0.0.0/4 and ff00::/8.
    Multicast,
    /// 0.0.0.0/8 and ::.
    Unspecified,
    /// 255.255.255.255.
    Broadcast,
    /// 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32 and 3fff::/20.
    Documentation,
    /// 198.18.0.0/15 and 2001:2::/48.
    Benchmarking,
    /// fc00::/7.
    UniqueLocal,
    /// fec0::/10 (deprecated, but still routed inside some sites).
    SiteLocal,
    /// Everything else set aside by IANA: 240.0.0.0/4, 192.0.0.0/24, 192.88.99.0/24,
    /// 2001::/23, IPv4-compatible IPv6 and IPv6 outside 2000::/3.
    Reserved,
}

impl AddressClass {
    /// A stable lower-case name, e.g. `loopback`.
    pub fn as_str(self) -> &'static str {
        match self {
            AddressClass::Loopback => "loopback",
            AddressClass::Private => "private",
            AddressClass::SharedAddressSpace => "shared_address_space",
            AddressClass::LinkLocal => "link_local",
            AddressClass::Multicast => "multicast",
            AddressClass::Unspecified => "unspecified",
            AddressClass::Broadcast => "broadcast",
            AddressClass::Documentation => "documentation",
            AddressClass::Benchmarking => "benchmarking",
            AddressClass::UniqueLocal => "unique_local",
            AddressClass::SiteLocal => "site_local",
            AddressClass::Reserved => "reserved",
        }
    }

    /// The class in words, with an article: "a loopback address (this machine)".
    pub fn describe(self) -> &'static str {
        match self {
            AddressClass::Loopback => "a loopback address (this machine)",
            AddressClass::Private => "a private-network address",
            AddressClass::SharedAddressSpace => "a carrier-grade NAT (shared) address",
            AddressClass::LinkLocal => "a link-local address",
            AddressClass::Multicast => "a multicast address",
            AddressClass::Unspecified => "the unspecified address",
            AddressClass::Broadcast => "the broadcast address",
            AddressClass::Documentation => "an address reserved for documentation",
            AddressClass::Benchmarking => "an address reserved for benchmarking",
            AddressClass::UniqueLocal => "a unique-local (private) IPv6 address",
            AddressClass::SiteLocal => "a site-local IPv6 address",
            AddressClass::Reserved => "a reserved address",
        }
    }
}

/// The class of a forbidden address, or `None` for a public one.
pub fn address_class(address: IpAddr) -> Option<AddressClass> {
    classify(address).map(|(class, _)| class)
}

/// The class of a forbidden address and, for IPv6 forms that carry an IPv4 address
/// (mapped, compatible, NAT64, 6to4), the IPv4 address that decided it.
fn classify(address: IpAddr) -> Option<(AddressClass, Option<Ipv4Addr>)> {
    match address {
        IpAddr::V4(v4) => ipv4_class(v4).map(|class| (class, None)),
        IpAddr::V6(v6) => ipv6_class(v6),
    }
}

fn ipv4_class(address: Ipv4Addr) -> Option<AddressClass> {
    use AddressClass::*;
    let [a, b, c, _] = address.octets();
    let class = match (a, b, c) {
        (255, 255, 255) if address.is_broadcast() => Broadcast,
        (0, _, _) => Unspecified,
        (10, _, _) => Private,
        (100, 64..=127, _) => SharedAddressSpace,
        (127, _, _) => Loopback,
        (169, 254, _) => LinkLocal,
        (172, 16..=31, _) => Private,
        (192, 0, 0) | (192, 88, 99) => Reserved,
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => Documentation,
        (192, 168, _) => Private,
        (198, 18..=19, _) => Benchmarking,
        (224..=239, _, _) => Multicast,
        (240..=255, _, _) => Reserved,
        _ => return None,
    };
    Some(class)
}

fn ipv6_class(address: Ipv6Addr) -> Option<(AddressClass, Option<Ipv4Addr>)> {
    use AddressClass::*;
    let s = address.segments();
    let last_v4 = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    // The IPv4 address carried by an IPv6 form decides, when it is forbidden.
    let carried = |v4: Ipv4Addr| ipv4_class(v4).map(|class| (class, Some(v4)));
    if address.is_unspecified() {
        return Some((Unspecified, None));
    }
    if address.is_loopback() {
        return Some((Loopback, None));
    }
    match s {
        // ::ffff:a.b.c.d, IPv4-mapped: the IPv4 address itself.
        [0, 0, 0, 0, 0, 0xffff, _, _] => carried(last_v4),
        // ::a.b.c.d, IPv4-compatible: deprecated and never routed publicly.
        [0, 0, 0, 0, 0, 0, _, _] => carried(last_v4).or(Some((Reserved, None))),
        // 64:ff9b::/96, well-known NAT64: reaches the IPv4 address it carries.
        [0x64, 0xff9b, 0, 0, 0, 0, _, _] => carried(last_v4),
        // 64:ff9b:1::/48, local-use NAT64: a translator inside the network.
        [0x64, 0xff9b, 1, ..] => Some((Private, None)),
        // 2002::/16, 6to4: the IPv4 address of the tunnel end.
        [0x2002, high, low, ..] => {
            carried(Ipv4Addr::new((high >> 8) as u8, high as u8, (low >> 8) as u8, low as u8))
        }
        [0x2001, 0xdb8, ..] => Some((Documentation, None)),
        [0x2001, 0x2, 0, ..] => Some((Benchmarking, None)),
        // 2001::/23: IETF protocol assignments (Teredo, ORCHID, …).
        [0x2001, second, ..] if second < 0x200 => Some((Reserved, None)),
        [0x3fff, second, ..] if second < 0x1000 => Some((Documentation, None)),
        [first, ..] if first & 0xff00 == 0xff00 => Some((Multicast, None)),
        [first, ..] if first & 0xffc0 == 0xfe80 => Some((LinkLocal, None)),
        [first, ..] if first & 0xffc0 == 0xfec0 => Some((SiteLocal, None)),
        [first, ..] if first & 0xfe00 == 0xfc00 => Some((UniqueLocal, None)),
        // Only 2000::/3 is allocated as global unicast.
        [first, ..] if first & 0xe000 == 0x2000 => None,
        _ => Some((Reserved, None)),
    }
}

/// Why the policy refused a host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The host as the URL spells it once normalised: `127.0.0.1`, `[::1]`, `localhost`.
    /// `http://2130706433/` and `http://0x7f.1/` both have the host `127.0.0.1`.
    pub host: String,
    /// The forbidden address: the host itself, or what its name resolved to. `None` when
    /// the name alone was enough (`localhost`).
    pub address: Option<IpAddr>,
    pub class: AddressClass,
    /// For IPv6 forms carrying an IPv4 address, the IPv4 address that was classed.
    pub carried: Option<Ipv4Addr>,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let class = self.class.describe();
        let bare_host = self.host.trim_start_matches('[').trim_end_matches(']');
        match self.address {
            Some(address) if bare_host.parse::<IpAddr>().ok() != Some(address) => {
                write!(f, "{} resolves to {address}, ", self.host)?;
            }
            _ => write!(f, "{} is ", self.host)?,
        }
        match self.carried {
            Some(v4) => write!(f, "an IPv6 form of {v4}, {class}"),
            None => f.write_str(class),
        }
    }
}

impl std::error::Error for Refusal {}

/// One entry of the allow-list: a host, optionally limited to one port.
#[derive(Debug, Clone, PartialEq, Eq)]
struct AllowedHost {
    /// Normalised as a URL's host: lower case, IPv6 in brackets, no trailing dot.
    host: String,
    port: Option<u16>,
}

/// The allow-list and the checks. Cheap to share behind an `Arc`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostPolicy {
    allowed: Vec<AllowedHost>,
}

impl HostPolicy {
    /// A policy that allows the listed hosts. Entries are host names or addresses, compared
    /// exactly and without regard to case, optionally with a port: `localhost`,
    /// `127.0.0.1:8080`, `[::1]`, `::1`, `wiki.internal:443`. An entry that is not a host is an
    /// error naming it.
    pub fn new(allow_hosts: &[String]) -> Result<HostPolicy, String> {
        let allowed = allow_hosts
            .iter()
            .map(|entry| entry.trim())
            .filter(|entry| !entry.is_empty())
            .map(parse_allowed_host)
            .collect::<Result<_, _>>()?;
        Ok(HostPolicy { allowed })
    }

    /// Checks the scheme-independent part of a URL: its host, unless allowed. Names other
    /// than `localhost` pass here and are checked again when they are resolved.
    pub fn check_url(&self, url: &Url) -> Result<(), Refusal> {
        let Some(host) = url.host() else { return Ok(()) };
        let spelled = normalise_host(&host.to_string());
        if self.allows(&spelled, url.port_or_known_default()) {
            return Ok(());
        }
        let address = match host {
            Host::Ipv4(v4) => IpAddr::V4(v4),
            Host::Ipv6(v6) => IpAddr::V6(v6),
            Host::Domain(_) => {
                if spelled == "localhost" || spelled.ends_with(".localhost") {
                    return Err(Refusal {
                        host: spelled,
                        address: None,
                        class: AddressClass::Loopback,
                        carried: None,
                    });
                }
                return Ok(());
            }
        };
        match classify(address) {
            Some((class, carried)) => {
                Err(Refusal { host: spelled, address: Some(address), class, carried })
            }
            None => Ok(()),
        }
    }

    /// Keeps the public addresses a name resolved to; refuses when none is left. A name on
    /// the allow-list (with any port) keeps all of them.
    pub fn check_resolved(
        &self,
        name: &str,
        addresses: Vec<SocketAddr>,
    ) -> Result<Vec<SocketAddr>, Refusal> {
        let name = normalise_host(name);
        if self.allowed.iter().any(|entry| entry.host == name) {
            return Ok(addresses);
        }
        let mut refusal = None;
        let kept: Vec<SocketAddr> = addresses
            .into_iter()
            .filter(|address| match classify(address.ip()) {
                None => true,
                Some((class, carried)) => {
                    tracing::warn!(%name, address = %address.ip(), class = class.as_str(), "dropped a forbidden address");
                    refusal.get_or_insert(Refusal {
                        host: name.clone(),
                        address: Some(address.ip()),
                        class,
                        carried,
                    });
                    false
                }
            })
            .collect();
        match refusal {
            Some(refusal) if kept.is_empty() => Err(refusal),
            _ => Ok(kept),
        }
    }

    fn allows(&self, host: &str, port: Option<u16>) -> bool {
        self.allowed
            .iter()
            .any(|entry| entry.host == host && entry.port.is_none_or(|p| Some(p) == port))
    }
}

fn normalise_host(host: &str) -> String {
    host.trim_end_matches('.').to_ascii_lowercase()
}

fn parse_allowed_host(entry: &str) -> Result<AllowedHost, String> {
    let invalid = |why: &str| format!("fetch.allow_hosts: '{entry}' is not a host{why}");
    let colons = entry.matches(':').count();
    let (host, port) = if let Some(rest) = entry.strip_prefix('[') {
        // [v6] or [v6]:port
        match rest.split_once(']') {
            Some((v6, "")) => (format!("[{v6}]"), None),
            Some((v6, port)) => match port.strip_prefix(':') {
                Some(port) => (format!("[{v6}]"), Some(port)),
                None => return Err(invalid("")),
            },
            None => return Err(invalid(" (missing ']')")),
        }
    } else if colons >= 2 {
        (format!("[{entry}]"), None)
    } else if let Some((host, port)) = entry.split_once(':') {
        (host.to_owned(), Some(port))
    } else {
        (entry.to_owned(), None)
    };
    let port = port
        .map(|port| port.parse::<u16>().map_err(|_| invalid(&format!(" (bad port '{port}')"))))
        .transpose()?;
    if host.contains(['/', '?', '#', '@']) {
        return Err(invalid("; write a host name, not a URL"));
    }
    let parsed = Host::parse(&host).map_err(|error| invalid(&format!(" ({error})")))?;
    Ok(AllowedHost { host: normalise_host(&parsed.to_string()), port })
}

/// The connect-time check: resolves names (fixed answers first, then the system resolver)
/// and hands reqwest only the addresses the policy keeps. IP-literal hosts never come here;
/// they are checked with their URL.
pub(crate) struct PolicyResolver {
    pub(crate) policy: Arc<HostPolicy>,
    pub(crate) fixed: HashMap<String, Vec<IpAddr>>,
}

impl reqwest::dns::Resolve for PolicyResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let name = normalise_host(name.as_str());
        let fixed = self.fixed.get(&name).cloned();
        let policy = Arc::clone(&self.policy);
        Box::pin(async move {
            let addresses: Vec<SocketAddr> = match fixed {
                Some(addresses) => {
                    addresses.into_iter().map(|address| SocketAddr::new(address, 0)).collect()
                }
                None => tokio::net::lookup_host((name.as_str(), 0)).await?.collect(),
            };
            let kept = policy.check_resolved(&name, addresses)?;
            let kept: reqwest::dns::Addrs = Box::new(kept.into_iter());
            Ok(kept)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks `input` (a URL, or a host put into `http://HOST/`) against the default policy;
    /// `expected` is a class name, or "allowed".
    fn check(input: &str, expected: &str) {
        let url = if input.contains("://") { input.to_owned() } else { format!("http://{input}/") };
        let url = Url::parse(&url).unwrap_or_else(|e| panic!("{input}: {e}"));
        let found = match HostPolicy::default().check_url(&url) {
            Ok(()) => "allowed",
            Err(refusal) => refusal.class.as_str(),
        };
        assert_eq!(found, expected, "{input} (parsed host {:?})", url.host_str());
    }

    #[test]
    fn every_class_of_ipv4_address_is_refused() {
        check("127.0.0.1", "loopback");
        check("127.255.255.254", "loopback");
        check("10.0.0.1", "private");
        check("172.16.0.1", "private");
        check("172.31.255.255", "private");
        check("192.168.1.1", "private");
        check("100.64.0.1", "shared_address_space");
        check("100.127.255.255", "shared_address_space");
        check("169.254.169.254", "link_local");
        check("224.0.0.1", "multicast");
        check("239.255.255.250", "multicast");
        check("0.0.0.0", "unspecified");
        check("0.1.2.3", "unspecified");
        check("255.255.255.255", "broadcast");
        check("192.0.2.1", "documentation");
        check("198.51.100.7", "documentation");
        check("203.0.113.9", "documentation");
        check("198.18.0.1", "benchmarking");
        check("192.0.0.8", "reserved");
        check("192.88.99.1", "reserved");
        check("240.0.0.1", "reserved");
        // Neighbours of the forbidden ranges are public.
        check("172.15.255.255", "allowed");
        check("172.32.0.0", "allowed");
        check("100.63.255.255", "allowed");
        check("100.128.0.0", "allowed");
        check("198.20.0.0", "allowed");
        check("8.8.8.8", "allowed");
        check("93.184.215.14", "allowed");
    }

    #[test]
    fn every_spelling_of_loopback_is_refused() {
        check("http://2130706433/", "loopback"); // decimal
        check("http://0177.0.0.1/", "loopback"); // octal
        check("http://0x7f.0.0.1/", "loopback"); // hex
        check("http://0x7f000001/", "loopback"); // one hex number
        check("http://017700000001/", "loopback"); // one octal number
        check("http://127.1/", "loopback"); // short form
        check("http://127.0.1/", "loopback");
        check("http://127.0.0.1./", "loopback"); // trailing dot
        check("http://0/", "unspecified");
        check("http://[::1]/", "loopback");
        check("http://[0:0:0:0:0:0:0:1]:8080/", "loopback");
        check("http://localhost/", "loopback");
        check("http://LocalHost:3000/", "loopback");
        check("http://localhost./", "loopback");
        check("http://api.localhost/", "loopback");
        check("http://%6c%6fcalhost/", "loopback"); // percent-encoded name
        check("http://user:pw@127.0.0.1/", "loopback");
        check("https://127.0.0.1:443/", "loopback");
        check("http://0x0a.0.0.1/", "private");
        check("http://3232235777/", "private"); // 192.168.1.1
        check("http://0251.0376.0251.0376/", "link_local"); // 169.254.169.254
    }

    #[test]
    fn every_class_of_ipv6_address_is_refused() {
        check("[::]", "unspecified");
        check("[::1]", "loopback");
        check("[fe80::1]", "link_local");
        check("[febf::1]", "link_local");
        check("[fec0::1]", "site_local");
        check("[fc00::1]", "unique_local");
        check("[fd12:3456:789a::1]", "unique_local");
        check("[ff02::1]", "multicast");
        check("[2001:db8::1]", "documentation");
        check("[3fff::1]", "documentation");
        check("[2001:2::1]", "benchmarking");
        check("[2001::1]", "reserved"); // Teredo
        check("[100::1]", "reserved"); // discard-only
        check("[4000::1]", "reserved");
        check("[64:ff9b:1::a00:1]", "private");
        check("[2606:4700:4700::1111]", "allowed");
        check("[2a00:1450:4001::200e]", "allowed");
    }

    #[test]
    fn ipv6_forms_carrying_a_forbidden_ipv4_address_are_refused() {
        check("[::ffff:127.0.0.1]", "loopback"); // mapped
        check("[::ffff:7f00:1]", "loopback");
        check("[::ffff:169.254.169.254]", "link_local");
        check("[::ffff:10.1.2.3]", "private");
        check("[::127.0.0.1]", "loopback"); // compatible
        check("[::10.0.0.1]", "private");
        check("[::8.8.8.8]", "reserved"); // compatible forms are never routed
        check("[64:ff9b::127.0.0.1]", "loopback"); // NAT64
        check("[64:ff9b::192.168.0.1]", "private");
        check("[2002:7f00:1::]", "loopback"); // 6to4
        check("[2002:c0a8:101::1]", "private");
        check("[::ffff:8.8.8.8]", "allowed");
        check("[64:ff9b::8.8.8.8]", "allowed");
        check("[2002:808:808::1]", "allowed");
    }

    #[test]
    fn names_pass_until_they_are_resolved() {
        check("example.com", "allowed");
        check("localhost.example.com", "allowed");
        check("127.0.0.1.nip.io", "allowed");
    }

    fn allowed(entries: &[&str], url: &str) -> bool {
        let entries: Vec<String> = entries.iter().map(|e| e.to_string()).collect();
        HostPolicy::new(&entries).unwrap().check_url(&Url::parse(url).unwrap()).is_ok()
    }

    #[test]
    fn the_allow_list_lifts_the_policy_for_exact_hosts_and_ports() {
        assert!(allowed(&["localhost"], "http://LOCALHOST:8080/x"));
        assert!(allowed(&["127.0.0.1"], "http://127.0.0.1:1234/"));
        assert!(allowed(&["127.0.0.1"], "http://2130706433/")); // same host once normalised
        assert!(allowed(&["0x7f.1"], "http://127.0.0.1/"));
        assert!(allowed(&["::1"], "http://[::1]:9000/"));
        assert!(allowed(&["[::1]:9000"], "http://[::1]:9000/"));
        assert!(allowed(&["127.0.0.1:8080"], "http://127.0.0.1:8080/"));
        assert!(allowed(&["wiki.localhost:443"], "https://wiki.localhost/"));
        assert!(!allowed(&["127.0.0.1:8080"], "http://127.0.0.1:8081/"));
        assert!(!allowed(&["[::1]:9000"], "http://[::1]/"));
        assert!(!allowed(&["localhost"], "http://127.0.0.1/"));
        assert!(!allowed(&["127.0.0.1"], "http://localhost/"));
        assert!(!allowed(&["127.0.0.1"], "http://127.0.0.2/"));
        assert!(!allowed(&["localhost"], "http://api.localhost/"));
    }

    #[test]
    fn bad_allow_list_entries_are_named() {
        for entry in ["http://x/", "host:port", "[::1", "a b"] {
            let error = HostPolicy::new(&[entry.to_owned()]).unwrap_err();
            assert!(error.contains(entry) && error.contains("fetch.allow_hosts"), "{error}");
        }
        assert_eq!(HostPolicy::new(&["  ".into()]).unwrap(), HostPolicy::default());
    }

    #[test]
    fn resolved_addresses_are_filtered() {
        let address = |text: &str| SocketAddr::new(text.parse().unwrap(), 0);
        let policy = HostPolicy::default();
        let error = policy.check_resolved("rebind.test", vec![address("127.0.0.1")]).unwrap_err();
        assert_eq!(error.class, AddressClass::Loopback);
        assert_eq!(
            error.to_string(),
            "rebind.test resolves to 127.0.0.1, a loopback address (this machine)"
        );
        let kept = policy
            .check_resolved("mixed.test", vec![address("10.0.0.1"), address("8.8.8.8")])
            .unwrap();
        assert_eq!(kept, [address("8.8.8.8")]);
        let error =
            policy.check_resolved("v6.test", vec![address("::ffff:127.0.0.1")]).unwrap_err();
        assert!(error.to_string().contains("an IPv6 form of 127.0.0.1, a loopback"), "{error}");
        let trusted = HostPolicy::new(&["rebind.test:8080".into()]).unwrap();
        assert!(trusted.check_resolved("rebind.test", vec![address("127.0.0.1")]).is_ok());
    }

    #[test]
    fn refusals_read_well() {
        let refuse = |url: &str| {
            HostPolicy::default().check_url(&Url::parse(url).unwrap()).unwrap_err().to_string()
        };
        assert_eq!(refuse("http://0x7f.1/"), "127.0.0.1 is a loopback address (this machine)");
        assert_eq!(refuse("http://localhost/"), "localhost is a loopback address (this machine)");
        assert_eq!(
            refuse("http://[::ffff:a9fe:a9fe]/"),
            "[::ffff:a9fe:a9fe] is an IPv6 form of 169.254.169.254, a link-local address"
        );
    }
}
