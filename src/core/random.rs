//! Bytes from the OS CSPRNG, fetched once for all a new paste needs.
//!
//! Every `getrandom(2)` is a system call that also sets up a kernel ChaCha
//! state; a create needs random bytes twice (its ID and its delete token),
//! and the two calls cost about 2 % of a create's CPU (perf, create flood).
//! One call now serves both. Bytes are handed out once each, in order.

/// Random bytes from one `getrandom(2)`, then from the OS again once used up.
pub struct OsRandom {
    buf: [u8; 64],
    taken: usize,
}

impl OsRandom {
    /// 64 bytes from the OS CSPRNG: a delete token (16) and an ID's pool (48).
    pub fn new() -> Result<Self, getrandom::Error> {
        let mut buf = [0; 64];
        getrandom::fill(&mut buf)?;
        Ok(Self { buf, taken: 0 })
    }

    /// Fills `out` with bytes never handed out before: from the buffer while
    /// it holds enough, otherwise straight from the OS.
    pub fn fill(&mut self, out: &mut [u8]) -> Result<(), getrandom::Error> {
        match self.buf.get(self.taken..self.taken + out.len()) {
            Some(fresh) => {
                out.copy_from_slice(fresh);
                self.taken += out.len();
                Ok(())
            }
            None => getrandom::fill(out),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn hands_out_each_byte_once_then_asks_the_os() {
        let mut random = OsRandom::new().unwrap();
        let all = random.buf;
        let (mut a, mut b, mut c) = ([0u8; 16], [0u8; 48], [0u8; 48]);
        random.fill(&mut a).unwrap();
        random.fill(&mut b).unwrap();
        assert_eq!(a, all[..16]);
        assert_eq!(b, all[16..]);
        // The buffer is used up: fresh bytes from the OS, not a repeat.
        random.fill(&mut c).unwrap();
        assert_ne!(c, b);
        assert_ne!(c, [0; 48]);
    }
}
