//! Bytes from the OS CSPRNG, fetched in bulk for the many creates a thread serves.
//!
//! Every `getrandom(2)` is a system call that also sets up a kernel ChaCha
//! state, and a create needs random bytes twice (its ID and its delete
//! token), so a call per create would be a real share of a create's cost.
//! Each thread fetches 4 KiB at a time and hands each byte out once: one
//! system call per 64 creates. The bytes are the OS CSPRNG's own, not a seed
//! for a userspace generator; a byte handed out is overwritten in the pool,
//! so no later caller (nor a memory dump of the pool) sees a token that was
//! already given away.

use std::cell::RefCell;

/// Bytes a thread fetches from the OS at once.
const POOL_BYTES: usize = 4096;
/// Bytes a create takes: a delete token (16) and an ID's pool (48).
const CREATE_BYTES: usize = 64;

thread_local! {
    static POOL: RefCell<Pool> = const { RefCell::new(Pool { buf: [0; POOL_BYTES], taken: POOL_BYTES }) };
}

/// A thread's OS random bytes not handed out yet: `buf[taken..]`.
struct Pool {
    buf: [u8; POOL_BYTES],
    taken: usize,
}

impl Pool {
    /// Moves the next `out.len()` fresh bytes into `out`, refilling from the
    /// OS first if fewer are left.
    fn take(&mut self, out: &mut [u8]) -> Result<(), getrandom::Error> {
        if POOL_BYTES - self.taken < out.len() {
            getrandom::fill(&mut self.buf)?;
            self.taken = 0;
        }
        let fresh = &mut self.buf[self.taken..self.taken + out.len()];
        out.copy_from_slice(fresh);
        fresh.fill(0);
        self.taken += out.len();
        Ok(())
    }
}

/// The random bytes one create uses, then the OS directly if it needs more.
pub struct OsRandom {
    buf: [u8; CREATE_BYTES],
    taken: usize,
}

impl OsRandom {
    /// 64 bytes from the OS CSPRNG (through this thread's pool).
    pub fn new() -> Result<Self, getrandom::Error> {
        let mut buf = [0; CREATE_BYTES];
        POOL.with_borrow_mut(|pool| pool.take(&mut buf))?;
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

    #[test]
    fn the_pool_never_repeats_and_wipes_what_it_gave() {
        let mut pool = Pool {
            buf: [0; POOL_BYTES],
            taken: POOL_BYTES,
        };
        // Three pools' worth: two refills happen on the way.
        let mut seen = std::collections::HashSet::new();
        for _ in 0..3 * POOL_BYTES / CREATE_BYTES {
            let mut out = [0u8; CREATE_BYTES];
            pool.take(&mut out).unwrap();
            assert_ne!(
                out, [0; CREATE_BYTES],
                "bytes from the OS, not the wiped pool"
            );
            assert!(seen.insert(out), "64 random bytes repeated");
            assert!(pool.buf[..pool.taken].iter().all(|&b| b == 0));
        }
    }
}
