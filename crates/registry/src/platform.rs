//! Target platforms in Go's naming (`linux_amd64`, `darwin_arm64`), as registries and the cache
//! layout use them.
//!
//! Invariant: a [`Platform`] has a non-empty OS and architecture without `_` or whitespace, so
//! its `os_arch` form parses back to itself.

use std::fmt;

/// An operating system and architecture pair.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Platform {
    /// Go's `GOOS` name.
    pub os: String,
    /// Go's `GOARCH` name.
    pub arch: String,
}

impl Platform {
    /// The platform this program was built for, in Go's names.
    pub fn current() -> Self {
        let os = match std::env::consts::OS {
            "macos" => "darwin",
            other => other,
        };
        let arch = match std::env::consts::ARCH {
            "x86_64" => "amd64",
            "x86" => "386",
            "aarch64" => "arm64",
            "powerpc64" if cfg!(target_endian = "little") => "ppc64le",
            "powerpc64" => "ppc64",
            "loongarch64" => "loong64",
            other => other,
        };
        Platform {
            os: os.to_owned(),
            arch: arch.to_owned(),
        }
    }

    /// Parses `os_arch` (getproviders `ParsePlatform`); `None` unless there are exactly two
    /// non-empty words without whitespace.
    pub fn parse(s: &str) -> Option<Self> {
        let (os, arch) = s.split_once('_')?;
        let ok = |w: &str| !w.is_empty() && !w.contains('_') && !w.contains(char::is_whitespace);
        (ok(os) && ok(arch)).then(|| Platform {
            os: os.to_owned(),
            arch: arch.to_owned(),
        })
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}_{}", self.os, self.arch)
    }
}
