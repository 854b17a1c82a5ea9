//! What answers look like: which representation a client prefers
//! ([`negotiate`]), the server-rendered HTML pages ([`pages`], [`account`],
//! built on [`layout`] from the templates in `templates/`, in the reader's
//! language: [`i18n`], chosen by [`language`]) with the embedded
//! web assets they use ([`assets`]), what pages tell other sites
//! ([`preview`]) and the view they may frame ([`embed`]), error answers in the client's
//! representation ([`error_answer`]), and the security headers of every
//! answer ([`security_headers`]).

pub mod account;
pub mod assets;
pub mod embed;
pub mod error_answer;
pub mod i18n;
pub mod language;
pub mod layout;
pub mod negotiate;
pub mod pages;
pub mod preview;
pub mod security_headers;

#[cfg(test)]
mod tests;
