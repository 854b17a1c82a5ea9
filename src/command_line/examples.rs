//! The examples each command's `--help` ends with, which its man page shows
//! as EXAMPLES ([`super::generate`]): one text per command, so the two can
//! never disagree.

/// The heading the man pages take the place of.
pub const HEADING: &str = "Examples:";

pub const SERVE: &str = "\
Examples:
  snip serve --listen 0.0.0.0:8000 --public-url https://paste.example.com
  snip serve --config /etc/snip/snip.toml
  snip serve --max-ttl 1w --default-ttl 1d --ttl-choices 1h,1d,1w
  SNIP_ADMIN_TOKEN_FILE=/etc/snip/admin-token snip serve --store postgres://snip@db/snip";

pub const PUT: &str = "\
Examples:
  echo hello | snip put
  snip put -t 1h -b < secret.txt              # expires in an hour, burns when read
  snip put notes.md build.log                 # one paste per file, named after it
  snip put -e -l rust src/main.rs             # encrypted here; the link holds the key
  snip put --password --burn < secret.txt     # link and password needed
  snip put --json --private report.csv        # needs SNIP_TOKEN";

pub const GET: &str = "\
Examples:
  snip get http://127.0.0.1:8000/k7m3q9xw2hd4p
  snip get -o logo.png k7m3q9xw2hd4p          # a bare ID goes to --server
  snip get --meta k7m3q9xw2hd4p               # metadata as JSON, never burns
  snip get 'http://127.0.0.1:8000/x2r9ktm8bq4we#3q2-7wYk…'   # decrypts with the #key";

pub const DELETE: &str = "\
Examples:
  snip delete http://127.0.0.1:8000/k7m3q9xw2hd4p    # with the token put remembered
  snip delete --token 5f0c…e1 k7m3q9xw2hd4p";

pub const LIST: &str = "\
Examples:
  snip list --mine                            # what you put from here, newest first
  SNIP_TOKEN=snip_… snip list --all           # every paste of your tenant
  snip list -q 'deploy error'                 # your tenant's pastes holding both words
  snip list --name-prefix build- --json";

pub const SHORTEN: &str = "\
Examples:
  snip shorten https://example.com/a/very/long/path
  snip shorten -t 1w https://example.com/";

pub const LOGIN: &str = "\
Examples:
  snip login                                  # prints a page and a code; enter it there
  snip login --server https://paste.example.com
  snip login && snip put --private notes.md   # as you, in your tenant";

pub const WHOAMI: &str = "\
Examples:
  snip whoami                                 # server, tenant, person, expiry
  snip whoami --server https://paste.example.com";

pub const LOGOUT: &str = "\
Examples:
  snip logout                                 # revoked on the server, forgotten here";

pub const ADMIN: &str = "\
Examples:
  snip admin tenant create team --max-bytes 1GiB --rate 50/s
  snip admin token create --tenant team --expires 30d
  snip admin tenant list
  snip admin token revoke tok_…";

pub const BACKUP: &str = "\
Examples:
  snip backup -o snip.snipdump                # from the running server (admin API)
  snip backup -o snip.snipdump --store /var/lib/snip   # a stopped server's data dir";

pub const RESTORE: &str = "\
Examples:
  snip restore snip.snipdump --store ./new-data
  snip restore snip.snipdump --store postgres://snip@db/snip";

pub const MIGRATE: &str = "\
Examples:
  snip migrate --from /var/lib/snip --to postgres://snip@db/snip";

pub const CONFIG: &str = "\
Examples:
  snip config
  snip config --server https://paste.example.com -t 1d";

pub const COMPLETIONS: &str = "\
Examples:
  snip completions bash > ~/.local/share/bash-completion/completions/snip
  snip completions zsh > ~/.zfunc/_snip";

pub const MAN: &str = "\
Examples:
  snip man ~/.local/share/man/man1 && man snip-put";
