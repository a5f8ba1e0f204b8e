//! The provider type of a provider binary on disk, read from its file name: a local provider
//! has no source address to take it from.

use tfp_echo::plain;

/// A local provider path that names no provider type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected path to end with \"terraform-provider-${{NAME}}\": {}", plain(.0))]
pub struct LocalNameError(pub String);

/// The provider type of a local provider: what follows the last `terraform-provider-` in its
/// path, without the `_v<version>…` suffix of release binaries (`terraform-provider-aws_v3.39.0_x5`
/// is `aws`). The Go binary keeps the suffix, which makes tokens such as `aws_v3.39.0_x5:…`.
pub fn local_provider_type(path: &str) -> Result<String, LocalNameError> {
    let whole = go_local_provider_type(path)?;
    let name = match whole.find("_v") {
        Some(i) if whole[i + 2..].starts_with(|c: char| c.is_ascii_digit()) => &whole[..i],
        _ => &whole,
    };
    if name.is_empty() {
        return Err(LocalNameError(path.to_owned()));
    }
    Ok(name.to_owned())
}

/// The provider type the Go binary reads from a local provider's path: all that follows the last
/// `terraform-provider-` (`run.LocalProvider`), a release suffix included. The packages, tokens
/// and states it made from a release binary carry that name.
pub fn go_local_provider_type(path: &str) -> Result<String, LocalNameError> {
    match path.rsplit_once("terraform-provider-") {
        Some((_, name)) if !name.is_empty() && !name.contains('/') => Ok(name.to_owned()),
        _ => Err(LocalNameError(path.to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_type_drops_the_release_suffix() {
        let local = |path| local_provider_type(path).expect("a provider type");
        assert_eq!(local("./terraform-provider-pyvider"), "pyvider");
        assert_eq!(local("/c/terraform-provider-aws_v3.39.0_x5"), "aws");
        assert_eq!(local("/c/terraform-provider-foo_v1"), "foo");
        assert_eq!(local("/c/terraform-provider-my_vpc"), "my_vpc");
        assert!(local_provider_type("/c/provider-foo").is_err());
        assert!(local_provider_type("/c/terraform-provider-").is_err());
        let go = |path| go_local_provider_type(path).expect("a provider type");
        assert_eq!(go("/c/terraform-provider-aws_v3.39.0_x5"), "aws_v3.39.0_x5");
        assert_eq!(go("./terraform-provider-pyvider"), "pyvider");
        assert!(go_local_provider_type("/c/terraform-provider-x/y").is_err());
    }

    #[test]
    fn a_path_without_a_provider_name_says_what_is_expected() {
        assert_eq!(
            local_provider_type("/c/provider-foo")
                .expect_err("no provider name")
                .to_string(),
            "expected path to end with \"terraform-provider-${NAME}\": /c/provider-foo"
        );
    }
}
