//! Property tests of URL handling on generated inputs (the short form of the fuzzing campaign;
//! `scripts/fuzz.sh` runs them with many more cases): nothing panics, only http(s) URLs pass,
//! and every loopback, private and link-local address is classified however it is spelled.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use factdesk_fetch::{HostPolicy, address_class, normalise_url, parse_http_url};
use proptest::prelude::*;

/// URL-ish text: schemes, user info, hosts in many spellings, ports, paths.
fn url_like() -> impl Strategy<Value = String> {
    let scheme = prop_oneof![
        Just("http://"),
        Just("https://"),
        Just("HTTP://"),
        Just("file://"),
        Just("ftp://"),
        Just("javascript:"),
        Just(""),
        Just("//"),
        Just("a.https://"),
    ];
    let host = prop_oneof![
        Just("example.org".to_owned()),
        Just("127.0.0.1".to_owned()),
        Just("0x7f.1".to_owned()),
        Just("2130706433".to_owned()),
        Just("[::1]".to_owned()),
        Just("[::ffff:10.0.0.1]".to_owned()),
        Just("localhost".to_owned()),
        Just("169.254.169.254".to_owned()),
        Just("xn--nxasmq6b".to_owned()),
        "[a-z0-9.-]{0,20}",
    ];
    let rest = prop_oneof![
        Just(""),
        Just(":8080/a?b#c"),
        Just("/%2e%2e/"),
        Just("@evil.org/"),
        Just(":99999")
    ];
    (scheme, prop_oneof![Just(""), Just("user:pw@")], host, rest, any::<String>())
        .prop_map(|(scheme, user, host, rest, tail)| format!("{scheme}{user}{host}{rest}{tail}"))
}

proptest! {
    #[test]
    fn only_http_urls_parse_and_nothing_panics(url in prop_oneof![url_like(), any::<String>()]) {
        if let Ok(parsed) = parse_http_url(&url) {
            prop_assert!(matches!(parsed.scheme(), "http" | "https"), "{url} -> {parsed}");
            let policy = HostPolicy::new(&[]).unwrap();
            let _ = policy.check_url(&parsed);
        }
        let _ = normalise_url(&url);
    }

    #[test]
    fn loopback_private_and_link_local_addresses_are_classified(
        v4 in any::<u32>(),
        v6 in any::<u128>(),
    ) {
        let v4 = Ipv4Addr::from(v4);
        let restricted = v4.is_loopback() || v4.is_private() || v4.is_link_local()
            || v4.is_unspecified() || v4.is_broadcast();
        if restricted {
            prop_assert!(address_class(IpAddr::V4(v4)).is_some(), "{v4} passed");
        }
        // An IPv4 address mapped into IPv6 is judged as the IPv4 address.
        let mapped = v4.to_ipv6_mapped();
        prop_assert_eq!(
            address_class(IpAddr::V6(mapped)).is_some(),
            address_class(IpAddr::V4(v4)).is_some()
        );
        let _ = address_class(IpAddr::V6(Ipv6Addr::from(v6)));
        prop_assert!(address_class(IpAddr::V6(Ipv6Addr::LOCALHOST)).is_some());
    }
}
