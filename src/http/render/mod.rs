//! What answers look like: which representation a client prefers
//! ([`negotiate`]), the server-rendered HTML pages ([`pages`], [`account`],
//! built on [`layout`] from the templates in `templates/`) with the embedded
//! web assets they use ([`assets`]), and error answers in the client's
//! representation ([`error_answer`]).

pub mod account;
pub mod assets;
pub mod error_answer;
pub mod layout;
pub mod negotiate;
pub mod pages;

#[cfg(test)]
mod tests;
