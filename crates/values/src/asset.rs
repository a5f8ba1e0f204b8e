//! Assets and archives: Pulumi's references to files, text and collections of them.
//!
//! Mirrors pulumi/pulumi `sdk/go/common/resource/{asset,archive}/*.go`, as data only: this crate
//! never reads a file or a URI and never computes a hash. On the wire the sources are optional
//! keys of one object; here each has one source at most, and `None` means the engine elided the
//! contents (Diff sends hash-only assets) or the asset really is empty.

use std::collections::BTreeMap;

/// An asset (`asset.Asset` in Go).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Asset {
    /// SHA-256 of the contents, lowercase hex, when the sender computed it.
    pub hash: Option<String>,
    /// Where the contents come from; `None` when only the hash was sent.
    pub source: Option<AssetSource>,
}

/// Where an asset's contents come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AssetSource {
    /// The contents themselves.
    Text(String),
    /// A path on the engine's machine, relative to the program directory when not absolute.
    Path(String),
    /// A URI (`file://`, `http://`, `https://` or another scheme the engine understands).
    Uri(String),
}

/// An archive (`archive.Archive` in Go).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Archive {
    /// SHA-256 of the contents, lowercase hex, when the sender computed it.
    pub hash: Option<String>,
    /// Where the contents come from; `None` when only the hash was sent.
    pub source: Option<ArchiveSource>,
}

/// Where an archive's contents come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArchiveSource {
    /// Named members, each an asset or another archive.
    Assets(BTreeMap<String, ArchiveMember>),
    /// A path to a zip, tar, tgz or directory.
    Path(String),
    /// A URI of an archive file.
    Uri(String),
}

/// One member of an [`ArchiveSource::Assets`] archive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArchiveMember {
    /// A single file.
    Asset(Asset),
    /// A nested archive.
    Archive(Archive),
}

impl Asset {
    /// A text asset.
    #[must_use]
    pub fn text(text: impl Into<String>) -> Asset {
        Asset {
            hash: None,
            source: Some(AssetSource::Text(text.into())),
        }
    }

    /// A file asset.
    #[must_use]
    pub fn path(path: impl Into<String>) -> Asset {
        Asset {
            hash: None,
            source: Some(AssetSource::Path(path.into())),
        }
    }

    /// A URI asset.
    #[must_use]
    pub fn uri(uri: impl Into<String>) -> Asset {
        Asset {
            hash: None,
            source: Some(AssetSource::Uri(uri.into())),
        }
    }

    /// The same asset with its hash set.
    #[must_use]
    pub fn with_hash(mut self, hash: impl Into<String>) -> Asset {
        self.hash = Some(hash.into());
        self
    }
}

impl Archive {
    /// An archive of named members.
    #[must_use]
    pub fn assets<K: Into<String>>(
        members: impl IntoIterator<Item = (K, ArchiveMember)>,
    ) -> Archive {
        Archive {
            hash: None,
            source: Some(ArchiveSource::Assets(
                members.into_iter().map(|(k, m)| (k.into(), m)).collect(),
            )),
        }
    }

    /// A file archive.
    #[must_use]
    pub fn path(path: impl Into<String>) -> Archive {
        Archive {
            hash: None,
            source: Some(ArchiveSource::Path(path.into())),
        }
    }

    /// A URI archive.
    #[must_use]
    pub fn uri(uri: impl Into<String>) -> Archive {
        Archive {
            hash: None,
            source: Some(ArchiveSource::Uri(uri.into())),
        }
    }

    /// The same archive with its hash set.
    #[must_use]
    pub fn with_hash(mut self, hash: impl Into<String>) -> Archive {
        self.hash = Some(hash.into());
        self
    }
}

impl From<Asset> for ArchiveMember {
    fn from(asset: Asset) -> ArchiveMember {
        ArchiveMember::Asset(asset)
    }
}

impl From<Archive> for ArchiveMember {
    fn from(archive: Archive) -> ArchiveMember {
        ArchiveMember::Archive(archive)
    }
}
