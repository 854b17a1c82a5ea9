//! Test data and the data dir's size: reproducible incompressible bytes, and
//! how much disk a directory takes.

use std::path::Path;

/// A tiny deterministic PRNG (xorshift64) for test bodies: incompressible, reproducible.
pub struct XorShift(pub u64);

impl XorShift {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// `len` random bytes.
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        let mut out = vec![0u8; len];
        for chunk in out.chunks_mut(8) {
            let word = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
        out
    }
}

/// Total size of the files under `dir`, in bytes.
pub fn dir_size(dir: &Path) -> u64 {
    sum_files(dir, &|metadata| metadata.len())
}

/// Disk space the files under `dir` really take (allocated blocks, as `du` counts),
/// in bytes. Unlike [`dir_size`] it does not count the unwritten tail of a file
/// the store preallocated with `set_len` (fjall does that to its 64 MiB journals).
pub fn disk_usage(dir: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    sum_files(dir, &|metadata| metadata.blocks() * 512)
}

/// The sum of `size` over the files under `dir`, recursively.
fn sum_files(dir: &Path, size: &dyn Fn(&std::fs::Metadata) -> u64) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => sum_files(&e.path(), size),
            Ok(_) => e.metadata().map(|m| size(&m)).unwrap_or(0),
            Err(_) => 0,
        })
        .sum()
}
