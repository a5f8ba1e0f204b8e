//! The bytes of one cache entry: what Parameterize and GetSchema need, behind a checksum.
//!
//! Layout: the magic `TFPSCHEM`, the format (`u32`, little-endian, [`FORMAT`]), five sections
//! each written as a `u64` little-endian length and its bytes (the key's text, the package
//! name, the package version, the provider's `GetProviderSchema` answer as protobuf, the
//! package schema JSON), then the CRC-32 of everything before it. A file cut short, grown, or
//! with any byte changed fails to decode; CRC-32 is enough because the entry guards against
//! accidents (a full disk, a killed writer, a bad sector), not against someone who can write to
//! the cache, who could as well replace the provider.

use std::{
    io::{self, Write},
    ops::Range,
};

const MAGIC: &[u8; 8] = b"TFPSCHEM";

/// The entry layout's version; changing the layout changes it, and an entry of another format
/// is rebuilt.
pub(crate) const FORMAT: u32 = 1;

/// One cache entry, as read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The text of the key it was stored under, checked on reading.
    pub key: String,
    /// The Pulumi package name.
    pub name: String,
    /// The Pulumi package version.
    pub version: String,
    /// The provider's `GetProviderSchema` answer, protobuf-encoded.
    pub tf_schema: Vec<u8>,
    /// The Pulumi package schema JSON, as GetSchema returns it.
    pub package_schema: String,
}

/// One cache entry, as written: borrowed, so that writing it copies nothing.
#[derive(Clone, Copy, Debug)]
pub struct Parts<'a> {
    pub key: &'a str,
    pub name: &'a str,
    pub version: &'a str,
    pub tf_schema: &'a [u8],
    /// The package schema JSON, in pieces that are written one after the other (as
    /// `tfp_schema::SchemaJson` holds it).
    pub package_schema: &'a [&'a [u8]],
}

/// Why bytes are not an entry.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EntryError {
    #[error("it does not start with the entry magic")]
    Magic,
    #[error("it has format {0}, this plugin writes format {FORMAT}")]
    Format(u32),
    #[error("it is cut short")]
    Truncated,
    #[error("it has {0} bytes after its last section")]
    Trailing(usize),
    #[error("its checksum does not match its content")]
    Checksum,
    #[error("its {0} is not UTF-8")]
    Utf8(&'static str),
}

impl Parts<'_> {
    /// Writes the entry's bytes to `out`, computing the checksum on the way.
    pub fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        let mut out = Summed {
            out,
            crc: crc32fast::Hasher::new(),
        };
        out.write_all(MAGIC)?;
        out.write_all(&FORMAT.to_le_bytes())?;
        let (key, name, version) = (
            self.key.as_bytes(),
            self.name.as_bytes(),
            self.version.as_bytes(),
        );
        let whole = std::slice::from_ref;
        let sections: [&[&[u8]]; 5] = [
            whole(&key),
            whole(&name),
            whole(&version),
            whole(&self.tf_schema),
            self.package_schema,
        ];
        for pieces in sections {
            let len: usize = pieces.iter().map(|piece| piece.len()).sum();
            out.write_all(&(len as u64).to_le_bytes())?;
            for piece in pieces {
                out.write_all(piece)?;
            }
        }
        let checksum = out.crc.finalize();
        out.out.write_all(&checksum.to_le_bytes())
    }
}

impl Entry {
    /// The entry's parts, to write it again; the package schema in `pieces`, which must join
    /// to it.
    #[cfg(test)]
    pub(crate) fn parts<'a>(&'a self, pieces: &'a [&'a [u8]]) -> Parts<'a> {
        Parts {
            key: &self.key,
            name: &self.name,
            version: &self.version,
            tf_schema: &self.tf_schema,
            package_schema: pieces,
        }
    }

    /// Reads an entry; anything but exactly what [`Parts::write_to`] writes is an error.
    pub fn decode(mut bytes: Vec<u8>) -> Result<Entry, EntryError> {
        let Some(body_len) = bytes.len().checked_sub(4) else {
            return Err(EntryError::Truncated);
        };
        let mut reader = Reader {
            bytes: &bytes[..body_len],
            at: 0,
        };
        if reader.take(8)? != MAGIC {
            return Err(EntryError::Magic);
        }
        let format = u32::from_le_bytes(reader.array()?);
        if format != FORMAT {
            return Err(EntryError::Format(format));
        }
        let mut sections: [Range<usize>; 5] = Default::default();
        for section in &mut sections {
            let len = u64::from_le_bytes(reader.array()?);
            let len = usize::try_from(len).map_err(|_| EntryError::Truncated)?;
            let start = reader.at;
            reader.take(len)?;
            *section = start..reader.at;
        }
        if reader.at != body_len {
            return Err(EntryError::Trailing(body_len - reader.at));
        }
        let stored = u32::from_le_bytes(bytes[body_len..].try_into().expect("four bytes remain"));
        if crc32fast::hash(&bytes[..body_len]) != stored {
            return Err(EntryError::Checksum);
        }
        let [key, name, version, tf_schema, package_schema] = sections;
        // The package schema, megabytes and the last section, is moved out rather than copied
        // twice.
        bytes.truncate(package_schema.end);
        let package_schema = String::from_utf8(bytes.split_off(package_schema.start))
            .map_err(|_| EntryError::Utf8("package schema"))?;
        let text = |range: Range<usize>, what| {
            String::from_utf8(bytes[range].to_vec()).map_err(|_| EntryError::Utf8(what))
        };
        Ok(Entry {
            key: text(key, "key")?,
            name: text(name, "name")?,
            version: text(version, "version")?,
            tf_schema: bytes[tf_schema].to_vec(),
            package_schema,
        })
    }
}

/// A writer that keeps the CRC-32 of what went through it.
struct Summed<'a, W> {
    out: &'a mut W,
    crc: crc32fast::Hasher,
}

impl<W: Write> Summed<'_, W> {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.crc.update(bytes);
        self.out.write_all(bytes)
    }
}

/// A cursor over the body of an entry.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, len: usize) -> Result<&'a [u8], EntryError> {
        let end = self
            .at
            .checked_add(len)
            .filter(|end| *end <= self.bytes.len())
            .ok_or(EntryError::Truncated)?;
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], EntryError> {
        Ok(self.take(N)?.try_into().expect("take returns N bytes"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> Entry {
        Entry {
            key: "{\"k\":1}".into(),
            name: "random".into(),
            version: "3.6.3".into(),
            tf_schema: vec![1, 2, 3],
            package_schema: "{\"name\":\"random\"}".to_owned(),
        }
    }

    fn encode(entry: &Entry) -> Vec<u8> {
        let mut bytes = Vec::new();
        let pieces = [entry.package_schema.as_bytes()];
        entry
            .parts(&pieces)
            .write_to(&mut bytes)
            .expect("in memory");
        bytes
    }

    #[test]
    fn an_entry_reads_back_as_written() {
        assert_eq!(Entry::decode(encode(&entry())), Ok(entry()));
    }

    #[test]
    fn a_package_schema_in_pieces_is_stored_as_one_text() {
        let entry = entry();
        let (head, tail) = entry.package_schema.split_at(5);
        let pieces = [head.as_bytes(), b"", tail.as_bytes()];
        let mut bytes = Vec::new();
        entry
            .parts(&pieces)
            .write_to(&mut bytes)
            .expect("in memory");
        assert_eq!(bytes, encode(&entry));
        assert_eq!(Entry::decode(bytes), Ok(entry));
    }

    #[test]
    fn every_cut_and_every_flipped_byte_is_refused() {
        let bytes = encode(&entry());
        for len in 0..bytes.len() {
            assert!(
                Entry::decode(bytes[..len].to_vec()).is_err(),
                "cut at {len}"
            );
        }
        for at in 0..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x40;
            assert!(Entry::decode(flipped).is_err(), "byte {at} flipped");
        }
        let mut grown = bytes.clone();
        grown.push(0);
        assert!(Entry::decode(grown).is_err());
    }

    #[test]
    fn another_format_is_named() {
        let mut bytes = encode(&entry());
        bytes[8..12].copy_from_slice(&7u32.to_le_bytes());
        assert_eq!(Entry::decode(bytes), Err(EntryError::Format(7)));
    }
}
