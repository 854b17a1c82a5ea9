//! The server's TOML file (`--config`): its keys, typed, and how they fill
//! in the options no flag or environment variable set.
//!
//! The keys are the long flags of `snip serve` (`max-paste-size = "8MiB"`).
//! A value is read by the flag's own parser, so the file takes what the flag
//! takes, written as a string or, for numbers and switches, bare
//! (`store-pool-size = 16`, `sync = true`). A flag that takes a list takes a
//! TOML array (`trusted-proxy = ["127.0.0.1/32", "::1/128"]`) or the flag's
//! comma-separated string.
//!
//! Precedence is clap's: a key is used only where
//! [`ArgMatches::value_source`] says the option came from neither the command
//! line nor the environment.

use std::fmt::{self, Display};
use std::marker::PhantomData;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use clap::ArgMatches;
use clap::parser::ValueSource;
use ipnet::IpNet;
use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};

use super::serve::{
    RateSetting, Secret, ServeArgs, Switch, parse_concurrency, parse_id_length, parse_ipv6_prefix,
    parse_max_files, parse_paste_size, parse_rate, parse_title,
};
use super::tls::{Interval, parse_domain, parse_email, parse_interval};
use crate::client::store_args::parse_schema;
use crate::core::Ttl;
use crate::core::units::{parse_duration, parse_size};
use crate::http::{AnonymousPolicy, ProxyHeaders};
use crate::logging::LogFormat;
use crate::store::Location;

/// Every key of the file; `None` where the file does not set it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ServeFile {
    #[serde(default, deserialize_with = "from_str")]
    listen: Option<SocketAddr>,
    #[serde(default, deserialize_with = "from_str")]
    data_dir: Option<PathBuf>,
    #[serde(default, deserialize_with = "from_str")]
    store: Option<Location>,
    #[serde(default, deserialize_with = "schema")]
    store_schema: Option<String>,
    #[serde(default, deserialize_with = "from_str")]
    store_pool_size: Option<usize>,
    #[serde(default, deserialize_with = "duration")]
    store_timeout: Option<Duration>,
    #[serde(default, deserialize_with = "from_str")]
    public_url: Option<String>,
    #[serde(default, deserialize_with = "paste_size")]
    max_paste_size: Option<u64>,
    #[serde(default, deserialize_with = "max_files")]
    max_files: Option<usize>,
    #[serde(default, deserialize_with = "size")]
    max_storage: Option<u64>,
    #[serde(default, deserialize_with = "ttl")]
    default_ttl: Option<Ttl>,
    #[serde(default, deserialize_with = "ttl")]
    max_ttl: Option<Ttl>,
    #[serde(default, deserialize_with = "ttls")]
    ttl_choices: Option<Vec<Ttl>>,
    #[serde(default, deserialize_with = "from_str")]
    sync: Option<bool>,
    #[serde(default, deserialize_with = "id_length")]
    id_length: Option<usize>,
    #[serde(default, deserialize_with = "from_str")]
    program_fuel: Option<u64>,
    #[serde(default, deserialize_with = "size")]
    program_memory: Option<u64>,
    #[serde(default, deserialize_with = "concurrency")]
    program_concurrency: Option<u32>,
    #[serde(default, deserialize_with = "concurrency")]
    search_concurrency: Option<u32>,
    #[serde(default, deserialize_with = "duration")]
    sweep_interval: Option<Duration>,
    #[serde(default, deserialize_with = "duration")]
    header_timeout: Option<Duration>,
    #[serde(default, deserialize_with = "size")]
    max_inflight_bytes: Option<u64>,
    #[serde(default, deserialize_with = "size")]
    max_inflight_bytes_per_ip: Option<u64>,
    #[serde(default, deserialize_with = "duration")]
    send_timeout: Option<Duration>,
    #[serde(default, deserialize_with = "size")]
    max_response_bytes: Option<u64>,
    #[serde(default, deserialize_with = "size")]
    max_response_bytes_per_ip: Option<u64>,
    #[serde(default, deserialize_with = "duration")]
    body_timeout: Option<Duration>,
    #[serde(default, deserialize_with = "duration")]
    body_first_byte_timeout: Option<Duration>,
    #[serde(default, deserialize_with = "size")]
    body_min_rate: Option<u64>,
    #[serde(default, deserialize_with = "size")]
    cache_size: Option<u64>,
    #[serde(default, deserialize_with = "value_enum")]
    anonymous: Option<AnonymousPolicy>,
    #[serde(default, deserialize_with = "rate")]
    ip_rate: Option<RateSetting>,
    #[serde(default, deserialize_with = "from_str")]
    ip_burst: Option<u32>,
    #[serde(default, deserialize_with = "ipv6_prefix")]
    ipv6_prefix: Option<u8>,
    #[serde(default, deserialize_with = "from_str")]
    max_connections_per_ip: Option<usize>,
    #[serde(default, deserialize_with = "rate")]
    tenant_rate: Option<RateSetting>,
    #[serde(default, deserialize_with = "from_str")]
    tenant_burst: Option<u32>,
    #[serde(default, deserialize_with = "proxies")]
    trusted_proxy: Option<Vec<IpNet>>,
    #[serde(default, deserialize_with = "value_enum")]
    proxy_headers: Option<ProxyHeaders>,
    #[serde(default, deserialize_with = "from_str")]
    proxy_protocol: Option<bool>,
    #[serde(default, deserialize_with = "from_str")]
    admin_token: Option<Secret>,
    #[serde(default, deserialize_with = "from_str")]
    admin_token_file: Option<PathBuf>,
    #[serde(default, deserialize_with = "from_str")]
    oidc_issuer: Option<String>,
    #[serde(default, deserialize_with = "from_str")]
    oidc_client_id: Option<String>,
    #[serde(default, deserialize_with = "from_str")]
    oidc_client_secret_file: Option<PathBuf>,
    #[serde(default, deserialize_with = "from_str")]
    oidc_tenant_claim: Option<String>,
    #[serde(default, deserialize_with = "duration")]
    oidc_session_lifetime: Option<Duration>,
    #[serde(default, deserialize_with = "duration_or_zero")]
    oidc_recheck_interval: Option<Duration>,
    #[serde(default, deserialize_with = "value_enum")]
    token_signin: Option<Switch>,
    #[serde(default, deserialize_with = "title")]
    title: Option<String>,
    #[serde(default, deserialize_with = "value_enum")]
    link_previews: Option<Switch>,
    #[serde(default, deserialize_with = "from_str")]
    log: Option<String>,
    #[serde(default, deserialize_with = "value_enum")]
    log_format: Option<LogFormat>,
    #[serde(default, deserialize_with = "from_str")]
    netcat_listen: Option<SocketAddr>,
    #[serde(default, deserialize_with = "from_str")]
    metrics_listen: Option<SocketAddr>,
    #[serde(default, deserialize_with = "from_str")]
    metrics_public: Option<bool>,
    #[serde(default, deserialize_with = "from_str")]
    no_fast_path: Option<bool>,
    #[serde(default, deserialize_with = "from_str")]
    tls_cert: Option<PathBuf>,
    #[serde(default, deserialize_with = "from_str")]
    tls_key: Option<PathBuf>,
    #[serde(default, deserialize_with = "interval")]
    tls_reload_interval: Option<Interval>,
    #[serde(default, deserialize_with = "domains")]
    acme_domain: Option<Vec<String>>,
    #[serde(default, deserialize_with = "email")]
    acme_email: Option<String>,
    #[serde(default, deserialize_with = "from_str")]
    acme_directory: Option<String>,
    #[serde(default, deserialize_with = "from_str")]
    acme_ca_root: Option<PathBuf>,
    #[serde(default, deserialize_with = "interval")]
    hsts: Option<Interval>,
    #[serde(default, deserialize_with = "from_str")]
    redirect_http: Option<SocketAddr>,
}

impl ServeFile {
    /// Sets, in `args`, each option the file gives and that neither a flag
    /// nor an environment variable set (as `matches`, the parse of `serve`'s
    /// arguments, tells). Every field is named once here: a key the file
    /// reads but this leaves out would be silently ignored.
    pub fn fill_in(self, args: &mut ServeArgs, matches: &ArgMatches) {
        let unset = |id: &str| {
            debug_assert!(
                matches.try_get_raw(id).is_ok(),
                "{id} is no option of `serve`"
            );
            !matches!(
                matches.value_source(id),
                Some(ValueSource::CommandLine | ValueSource::EnvVariable)
            )
        };
        macro_rules! fill {
            ($slot:expr, Some($key:ident)) => {
                if let (Some(value), true) = ($key, unset(stringify!($key))) {
                    $slot = Some(value);
                }
            };
            ($slot:expr, $key:ident) => {
                if let (Some(value), true) = ($key, unset(stringify!($key))) {
                    $slot = value;
                }
            };
        }
        // Taken apart, so that a key left out below is an unused variable;
        // each is named as its option's clap id (`store` is `location`).
        let Self {
            listen,
            data_dir,
            store: location,
            store_schema,
            store_pool_size,
            store_timeout,
            public_url,
            max_paste_size,
            max_files,
            max_storage,
            default_ttl,
            max_ttl,
            ttl_choices,
            sync,
            id_length,
            program_fuel,
            program_memory,
            program_concurrency,
            search_concurrency,
            sweep_interval,
            header_timeout,
            max_inflight_bytes,
            max_inflight_bytes_per_ip,
            send_timeout,
            max_response_bytes,
            max_response_bytes_per_ip,
            body_timeout,
            body_first_byte_timeout,
            body_min_rate,
            cache_size,
            anonymous,
            ip_rate,
            ip_burst,
            ipv6_prefix,
            max_connections_per_ip,
            tenant_rate,
            tenant_burst,
            trusted_proxy,
            proxy_headers,
            proxy_protocol,
            admin_token,
            admin_token_file,
            oidc_issuer,
            oidc_client_id,
            oidc_client_secret_file,
            oidc_tenant_claim,
            oidc_session_lifetime,
            oidc_recheck_interval,
            token_signin,
            title,
            link_previews,
            log,
            log_format,
            netcat_listen,
            metrics_listen,
            metrics_public,
            no_fast_path,
            tls_cert,
            tls_key,
            tls_reload_interval,
            acme_domain,
            acme_email,
            acme_directory,
            acme_ca_root,
            hsts,
            redirect_http,
        } = self;
        fill!(args.listen, listen);
        fill!(args.data_dir, data_dir);
        fill!(args.store.location, Some(location));
        fill!(args.store.store_schema, Some(store_schema));
        fill!(args.store.store_pool_size, store_pool_size);
        fill!(args.store.store_timeout, store_timeout);
        fill!(args.public_url, Some(public_url));
        fill!(args.max_paste_size, max_paste_size);
        fill!(args.max_storage, Some(max_storage));
        fill!(args.default_ttl, Some(default_ttl));
        fill!(args.max_ttl, max_ttl);
        fill!(args.ttl_choices, Some(ttl_choices));
        fill!(args.sync, sync);
        fill!(args.id_length, id_length);
        fill!(args.max_files, max_files);
        fill!(args.program_fuel, program_fuel);
        fill!(args.program_memory, program_memory);
        fill!(args.program_concurrency, program_concurrency);
        fill!(args.search_concurrency, search_concurrency);
        fill!(args.sweep_interval, sweep_interval);
        fill!(args.header_timeout, header_timeout);
        fill!(args.max_inflight_bytes, Some(max_inflight_bytes));
        fill!(
            args.max_inflight_bytes_per_ip,
            Some(max_inflight_bytes_per_ip)
        );
        fill!(args.send_timeout, send_timeout);
        fill!(args.max_response_bytes, max_response_bytes);
        fill!(args.max_response_bytes_per_ip, max_response_bytes_per_ip);
        fill!(args.body_timeout, body_timeout);
        fill!(args.body_first_byte_timeout, body_first_byte_timeout);
        fill!(args.body_min_rate, body_min_rate);
        fill!(args.cache_size, cache_size);
        fill!(args.anonymous, anonymous);
        fill!(args.ip_rate, ip_rate);
        fill!(args.ip_burst, Some(ip_burst));
        fill!(args.ipv6_prefix, ipv6_prefix);
        fill!(args.max_connections_per_ip, max_connections_per_ip);
        fill!(args.tenant_rate, tenant_rate);
        fill!(args.tenant_burst, Some(tenant_burst));
        fill!(args.trusted_proxy, trusted_proxy);
        fill!(args.proxy_headers, proxy_headers);
        fill!(args.proxy_protocol, proxy_protocol);
        fill!(args.admin_token, Some(admin_token));
        fill!(args.admin_token_file, Some(admin_token_file));
        fill!(args.oidc_issuer, Some(oidc_issuer));
        fill!(args.oidc_client_id, Some(oidc_client_id));
        fill!(args.oidc_client_secret_file, Some(oidc_client_secret_file));
        fill!(args.oidc_tenant_claim, oidc_tenant_claim);
        fill!(args.oidc_session_lifetime, oidc_session_lifetime);
        fill!(args.oidc_recheck_interval, oidc_recheck_interval);
        fill!(args.token_signin, token_signin);
        fill!(args.title, title);
        fill!(args.link_previews, link_previews);
        fill!(args.log, log);
        fill!(args.log_format, log_format);
        fill!(args.netcat_listen, Some(netcat_listen));
        fill!(args.metrics_listen, Some(metrics_listen));
        fill!(args.metrics_public, metrics_public);
        fill!(args.no_fast_path, no_fast_path);
        fill!(args.tls.tls_cert, Some(tls_cert));
        fill!(args.tls.tls_key, Some(tls_key));
        fill!(args.tls.tls_reload_interval, tls_reload_interval);
        fill!(args.tls.acme_domain, acme_domain);
        fill!(args.tls.acme_email, Some(acme_email));
        fill!(args.tls.acme_directory, acme_directory);
        fill!(args.tls.acme_ca_root, Some(acme_ca_root));
        fill!(args.tls.hsts, hsts);
        fill!(args.tls.redirect_http, Some(redirect_http));
    }
}

/// The text a flag would be given: a string, or a bare number or boolean.
struct Text;

impl<'de> Visitor<'de> for Text {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string, number or boolean")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        Ok(v.to_owned())
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<String, E> {
        Ok(v.to_string())
    }
}

/// The value, read by `parse` (the flag's parser).
fn parsed<'de, D, T, E>(d: D, parse: impl Fn(&str) -> Result<T, E>) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    E: Display,
{
    let text = d.deserialize_any(Text)?;
    parse(&text).map(Some).map_err(de::Error::custom)
}

/// A list: a TOML array, or the flag's comma-separated string.
struct List<T, P>(P, PhantomData<T>);

impl<'de, T, E, P> Visitor<'de> for List<T, P>
where
    E: Display,
    P: Fn(&str) -> Result<T, E>,
{
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of strings, or one comma-separated string")
    }
    fn visit_str<Er: de::Error>(self, v: &str) -> Result<Vec<T>, Er> {
        v.split(',')
            .map(|item| (self.0)(item).map_err(Er::custom))
            .collect()
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<String>()? {
            items.push((self.0)(&item).map_err(de::Error::custom)?);
        }
        Ok(items)
    }
}

fn list<'de, D, T, E>(
    d: D,
    parse: impl Fn(&str) -> Result<T, E>,
) -> Result<Option<Vec<T>>, D::Error>
where
    D: Deserializer<'de>,
    E: Display,
{
    d.deserialize_any(List(parse, PhantomData)).map(Some)
}

fn from_str<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: FromStr<Err: Display>,
{
    parsed(d, str::parse)
}

fn value_enum<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: clap::ValueEnum,
{
    parsed(d, |s| T::from_str(s, false))
}

fn size<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    parsed(d, parse_size)
}

fn paste_size<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    parsed(d, parse_paste_size)
}

fn duration<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    parsed(d, parse_duration)
}

fn duration_or_zero<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    parsed(d, crate::core::units::parse_duration_or_zero)
}

fn interval<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Interval>, D::Error> {
    parsed(d, parse_interval)
}

fn ttl<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Ttl>, D::Error> {
    parsed(d, Ttl::parse)
}

fn ttls<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<Ttl>>, D::Error> {
    list(d, Ttl::parse)
}

fn rate<'de, D: Deserializer<'de>>(d: D) -> Result<Option<RateSetting>, D::Error> {
    parsed(d, parse_rate)
}

fn id_length<'de, D: Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
    parsed(d, parse_id_length)
}

fn concurrency<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    parsed(d, parse_concurrency)
}

fn max_files<'de, D: Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
    parsed(d, parse_max_files)
}

fn ipv6_prefix<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u8>, D::Error> {
    parsed(d, parse_ipv6_prefix)
}

fn title<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    parsed(d, parse_title)
}

fn schema<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    parsed(d, parse_schema)
}

fn email<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    parsed(d, parse_email)
}

fn proxies<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<IpNet>>, D::Error> {
    list(d, |s: &str| s.trim().parse::<IpNet>())
}

fn domains<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    list(d, parse_domain)
}
