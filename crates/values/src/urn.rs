//! The two pieces of a Pulumi URN the bridge needs: the resource name and type token.
//!
//! A URN is `urn:pulumi:<stack>::<project>::<qualified type>::<name>`, where the qualified type is
//! `<parent type>$<type>` chains and the name may itself contain `::` (pulumi/pulumi
//! `sdk/go/common/resource/urn/urn.go`: `IsValid`, `Type`, `Name`). Malformed URNs give `None`,
//! so that a caller says the URN is malformed rather than looking up an empty name.

const PREFIX: &str = "urn:pulumi:";
const DELIMITER: &str = "::";

/// The parts of a well-formed resource URN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Urn<'a> {
    /// The resource's own type token: the qualified type after its last `$`.
    pub token: &'a str,
    /// The resource name: everything after the third `::`.
    pub name: &'a str,
}

impl<'a> Urn<'a> {
    /// Splits a URN; `None` when it is malformed.
    #[must_use]
    pub fn parse(urn: &'a str) -> Option<Urn<'a>> {
        let rest = urn.strip_prefix(PREFIX)?;
        let mut parts = rest.splitn(4, DELIMITER);
        let _stack = parts.next()?;
        let _project = parts.next()?;
        let qualified_type = parts.next()?;
        let name = parts.next()?;
        let token = qualified_type
            .rsplit_once('$')
            .map_or(qualified_type, |(_, ty)| ty);
        Some(Urn { token, name })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_of_urns() {
        let urn = Urn::parse("urn:pulumi:dev::proj::random:index/id:Id::name");
        assert_eq!(
            urn,
            Some(Urn {
                token: "random:index/id:Id",
                name: "name"
            })
        );
        assert_eq!(Urn::parse("urn:pulumi:dev::proj::T"), None);
        assert_eq!(Urn::parse("urn:other:a::b::c::d"), None);
        assert_eq!(Urn::parse("nonsense"), None);
        assert_eq!(
            Urn::parse("urn:pulumi:::::::"),
            Some(Urn {
                token: "",
                name: ""
            })
        );
    }

    #[test]
    fn parent_types_and_names_with_delimiters() {
        assert_eq!(
            Urn::parse("urn:pulumi:dev::proj::my:comp$aws:s3/bucket:Bucket::b::x"),
            Some(Urn {
                token: "aws:s3/bucket:Bucket",
                name: "b::x"
            })
        );
        assert_eq!(
            Urn::parse("urn:pulumi:dev::proj::pyvider:index/fileContent:FileContent::f"),
            Some(Urn {
                token: "pyvider:index/fileContent:FileContent",
                name: "f"
            })
        );
    }
}
