//! File systems of a test's own: a small tmpfs to fill up, or a small ext4
//! on a loop device (whose files can be made immutable under a running
//! server); unmounted when dropped. Mounting needs root (or CAP_SYS_ADMIN):
//! `mount` says why it could not, and the test skips.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A file system mounted on a fresh directory.
pub struct SmallDisk {
    dir: tempfile::TempDir,
    /// The ext4 image behind a loop mount.
    _image: Option<tempfile::TempDir>,
}

impl SmallDisk {
    /// Mounts a tmpfs of `size` (e.g. `8m`); `Err` says why it could not.
    pub fn mount(size: &str) -> Result<Self, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        mount(&[
            "-t",
            "tmpfs",
            "-o",
            &format!("size={size},mode=0700"),
            "tmpfs",
            path_str(dir.path())?,
        ])?;
        Ok(Self { dir, _image: None })
    }

    /// Makes an ext4 file system of `megabytes` in an image file and
    /// mounts it through a loop device; `Err` says why it could not.
    pub fn ext4(megabytes: u64) -> Result<Self, String> {
        let image_dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let image = image_dir.path().join("disk.img");
        std::fs::File::create(&image)
            .and_then(|f| f.set_len(megabytes << 20))
            .map_err(|e| e.to_string())?;
        run("mkfs.ext4", &["-q", path_str(&image)?])?;
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        mount(&["-o", "loop", path_str(&image)?, path_str(dir.path())?])?;
        Ok(Self {
            dir,
            _image: Some(image_dir),
        })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

fn path_str(path: &Path) -> Result<&str, String> {
    path.to_str()
        .ok_or_else(|| format!("{} is not UTF-8", path.display()))
}

fn mount(args: &[&str]) -> Result<(), String> {
    run("mount", args)
}

/// Runs `program`; `Err` with what it said if it fails.
pub fn run(program: &str, args: &[&str]) -> Result<(), String> {
    let output = Command::new(program)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).trim().to_owned());
    }
    Ok(())
}

/// Writes a file in `dir` until the file system has no byte left; the file.
pub fn fill_up(dir: &Path) -> PathBuf {
    let path = dir.join("ballast");
    let mut file = std::fs::File::create(&path).unwrap();
    for chunk in [1 << 20, 4 << 10, 1] {
        let bytes = vec![0xA5u8; chunk];
        while file.write_all(&bytes).is_ok() {}
    }
    let _ = file.sync_all();
    path
}
