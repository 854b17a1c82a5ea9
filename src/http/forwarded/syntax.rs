//! The grammar of forwarding headers: RFC 7239 `Forwarded` elements, node
//! names (`192.0.2.1:4711`, `"[2001:db8::1]:80"`, `unknown`, `_hidden`) and
//! the host names fit to print in a URL.

use std::net::IpAddr;

/// One proxy hop: what one proxy recorded about the connection it received.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Hop {
    pub node: Option<String>,
    pub proto: Option<String>,
    pub host: Option<String>,
}

/// Parses one `Forwarded` value (RFC 7239 §4): elements separated by `,`,
/// pairs by `;`, each `token=token` or `token="quoted string"`.
pub(super) fn parse_forwarded(line: &str, hops: &mut Vec<Hop>) -> Option<()> {
    let mut rest = line;
    let mut hop = Hop::default();
    loop {
        rest = rest.trim_start_matches([' ', '\t']);
        let eq = rest.find('=')?;
        let name = rest[..eq].trim_end();
        if name.is_empty() || !name.bytes().all(is_tchar) {
            return None;
        }
        let (value, after) = forwarded_value(&rest[eq + 1..])?;
        let slot = match name.to_ascii_lowercase().as_str() {
            "for" => &mut hop.node,
            "proto" => &mut hop.proto,
            "host" => &mut hop.host,
            _ => &mut None, // `by` and extensions: not used
        };
        if slot.replace(value).is_some() {
            return None; // a parameter twice in one element
        }
        rest = after.trim_start_matches([' ', '\t']);
        match rest.as_bytes().first() {
            None => {
                hops.push(hop);
                return Some(());
            }
            Some(b';') => rest = &rest[1..],
            Some(b',') => {
                hops.push(std::mem::take(&mut hop));
                rest = &rest[1..];
            }
            Some(_) => return None,
        }
    }
}

/// A token or quoted string at the start of `input`, and what follows it.
fn forwarded_value(input: &str) -> Option<(String, &str)> {
    let Some(quoted) = input.strip_prefix('"') else {
        let end = input
            .bytes()
            .position(|b| !is_tchar(b))
            .unwrap_or(input.len());
        return (end > 0).then(|| (input[..end].to_owned(), &input[end..]));
    };
    let mut value = String::new();
    let mut chars = quoted.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((value, &quoted[i + 1..])),
            '\\' => value.push(chars.next()?.1),
            c => value.push(c),
        }
    }
    None // unterminated
}

/// RFC 7230 `tchar`.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// The IP of a node (`192.0.2.1`, `192.0.2.1:4711`, `[2001:db8::1]`,
/// `[2001:db8::1]:4711`, a bare IPv6); `None` for `unknown`, obfuscated
/// identifiers (`_hidden`) and anything else.
pub(super) fn parse_node(node: &str) -> Option<IpAddr> {
    let node = node.trim();
    if let Ok(ip) = node.parse::<IpAddr>() {
        return Some(ip.to_canonical());
    }
    let host = match node.strip_prefix('[') {
        Some(bracketed) => {
            let (ip, port) = bracketed.split_once(']')?;
            if !port.is_empty() && !valid_port(port.strip_prefix(':')?) {
                return None;
            }
            ip
        }
        None => {
            let (ip, port) = node.split_once(':')?;
            if !valid_port(port) {
                return None;
            }
            ip
        }
    };
    host.parse::<IpAddr>().ok().map(|ip| ip.to_canonical())
}

/// A port number, or an obfuscated port (`_abc`).
fn valid_port(port: &str) -> bool {
    port.parse::<u16>().is_ok()
        || (port.len() > 1
            && port.starts_with('_')
            && port
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b)))
}

/// Whether `host` is a plain `name[:port]`, `IPv4[:port]` or `[IPv6][:port]`,
/// fit to put in a printed URL (no user info, path or markup).
pub(super) fn valid_host(host: &str) -> bool {
    if host.is_empty() || host.len() > 255 {
        return false;
    }
    let (name, port) = match host.strip_prefix('[') {
        Some(rest) => match rest.split_once(']') {
            Some((ip, port)) if ip.parse::<std::net::Ipv6Addr>().is_ok() => ("v6", port),
            _ => return false,
        },
        None => host.split_at(host.find(':').unwrap_or(host.len())),
    };
    let port_ok = port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|p| p.parse::<u16>().is_ok());
    let name_ok = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.');
    port_ok && name_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hosts that could smuggle a path, user info or markup into printed URLs are not used.
    #[test]
    fn hosts() {
        for good in [
            "a.example",
            "a.example:8443",
            "127.0.0.1:80",
            "[::1]:8000",
            "[2001:db8::1]",
        ] {
            assert!(valid_host(good), "{good}");
        }
        for bad in [
            "",
            "a/b",
            "user@a",
            "a:b:c",
            "a:99999",
            "<x>",
            "[nope]",
            "a.example:",
        ] {
            assert!(!valid_host(bad), "{bad}");
        }
    }
}
