//! The two pieces of a Pulumi URN a resource reference needs: the resource name and type token.
//!
//! A URN is `urn:pulumi:<stack>::<project>::<qualified type>::<name>`, where the qualified type is
//! `<parent type>$<type>` chains and the name may itself contain `::` (pulumi/pulumi
//! `sdk/go/common/resource/urn/urn.go`: `IsValid`, `Type`, `Name`). Malformed URNs give `None`.

const PREFIX: &str = "urn:pulumi:";
const DELIMITER: &str = "::";

/// The stack, project, qualified type and name of a well-formed URN.
fn components(urn: &str) -> Option<[&str; 4]> {
    let rest = urn.strip_prefix(PREFIX)?;
    let mut parts = rest.splitn(4, DELIMITER);
    let stack = parts.next()?;
    let project = parts.next()?;
    let qualified_type = parts.next()?;
    let name = parts.next()?;
    Some([stack, project, qualified_type, name])
}

/// The resource name: everything after the third `::`.
pub(crate) fn name(urn: &str) -> Option<&str> {
    components(urn).map(|[_, _, _, name]| name)
}

/// The resource's own type token: the qualified type after its last `$`.
pub(crate) fn type_token(urn: &str) -> Option<&str> {
    let [_, _, qualified_type, _] = components(urn)?;
    Some(
        qualified_type
            .rsplit_once('$')
            .map_or(qualified_type, |(_, ty)| ty),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_of_urns() {
        let urn = "urn:pulumi:dev::proj::random:index/id:Id::name";
        assert_eq!(name(urn), Some("name"));
        assert_eq!(type_token(urn), Some("random:index/id:Id"));
        assert_eq!(name("urn:pulumi:dev::proj::T"), None);
        assert_eq!(type_token("urn:other:a::b::c::d"), None);
        assert_eq!(name("urn:pulumi:::::::"), Some(""));
    }
}
