//! Autonaming of a resource's `name` input (pulumi-terraform-bridge
//! `pkg/tfbridge/info/autonaming.go`): the prior
//! name, else what the engine's autonaming options say, else `<urn name>-<7 hex chars>` drawn
//! deterministically from Check's random seed.
//!
//! The random suffix is Pulumi's `resource.NewUniqueName`, which draws from
//! `lukechampine.com/frand` v1.5.1 seeded with SHA-256 of the seed. That frand is Go's
//! `math/rand/v2` ChaCha8 generator ([`tfp_gostd::rand::ChaCha8`]); its `Intn(16)` rejects
//! values at or above the largest multiple of 16 and takes the rest modulo 16. Reproducing it
//! exactly gives the names the Go binary gives, so a program moved between the two binaries
//! keeps its resources. An engine that sends no seed gets names that cannot be reproduced, as
//! in Go; the caller draws that key, since this crate is deterministic.

use sha2::{Digest as _, Sha256};
use tfp_echo::plain;
use tfp_gostd::rand::ChaCha8;
use tfp_mapping::AutoName;
use tfp_values::PropertyValue;

/// The characters of the random suffix.
const CHARSET: &[u8] = b"0123456789abcdef";

/// What the engine asks of autonaming (pulumirpc `CheckRequest.AutonamingOptions`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Autonaming {
    /// The engine's name, unless it is longer than the resource allows.
    Propose(String),
    /// The engine's name, whatever its length.
    Enforce(String),
    /// No name may be made up.
    Disable,
}

/// Why no name could be made, in the Go bridge's words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AutonameError {
    #[error("automatic naming is disabled but no explicit name was provided")]
    Disabled,
    #[error("calculated name '{}' exceeds maximum length of {max_length}", plain(.name))]
    TooLong { name: String, max_length: usize },
    #[error(
        "could not make instance of '{}': name '{}' plus {random_chars} random chars is longer \
         than maximum length {max_length}",
        plain(.resource_type),
        plain(.prefix)
    )]
    NoRoom {
        resource_type: String,
        prefix: String,
        random_chars: usize,
        max_length: usize,
    },
}

/// The key the random suffix is drawn with: SHA-256 of the seed Check got; `None` for an empty
/// seed, for which Go draws a fresh random key.
pub fn seed_key(seed: &[u8]) -> Option<[u8; 32]> {
    (!seed.is_empty()).then(|| Sha256::digest(seed).into())
}

/// frand's `Intn(n)`.
fn intn(rng: &mut ChaCha8, n: u64) -> u64 {
    let max = u64::MAX - u64::MAX % n;
    loop {
        let i = rng.uint64();
        if i < max {
            return i % n;
        }
    }
}

/// Pulumi's `NewUniqueName(seed, prefix, randlen, maxlen, nil)`, drawn with `key`
/// ([`seed_key`]); `None` when the name would be longer than `maxlen`.
fn unique_name(key: [u8; 32], prefix: &str, randlen: usize, maxlen: usize) -> Option<String> {
    if maxlen > 0 && prefix.len() + randlen > maxlen {
        return None;
    }
    let mut rng = ChaCha8::new(key);
    let mut name = prefix.to_owned();
    for _ in 0..randlen {
        let i = intn(&mut rng, CHARSET.len() as u64);
        name.push(char::from(CHARSET[usize::try_from(i).unwrap_or(0)]));
    }
    Some(name)
}

/// The name to fill in for a resource whose inputs have no `name` (`ComputeAutoNameDefault`);
/// `key` draws the random suffix ([`seed_key`]).
pub fn autoname(
    auto: &AutoName,
    urn_name: &str,
    resource_type: &str,
    prior: Option<&PropertyValue>,
    options: Option<&Autonaming>,
    key: [u8; 32],
) -> Result<String, AutonameError> {
    if let Some(PropertyValue::String(prior)) = prior.map(|p| p.peel_secret().0) {
        return Ok(prior.clone());
    }
    match options {
        Some(Autonaming::Enforce(name)) => return Ok(name.clone()),
        Some(Autonaming::Disable) => return Err(AutonameError::Disabled),
        Some(Autonaming::Propose(name)) => {
            if auto.max_length > 0 && name.len() > auto.max_length {
                return Err(AutonameError::TooLong {
                    name: name.clone(),
                    max_length: auto.max_length,
                });
            }
            return Ok(name.clone());
        }
        None => {}
    }
    let prefix = format!("{urn_name}{}", auto.separator);
    unique_name(key, &prefix, auto.random_chars, auto.max_length).ok_or_else(|| {
        AutonameError::NoRoom {
            resource_type: resource_type.to_owned(),
            prefix,
            random_chars: auto.random_chars,
            max_length: auto.max_length,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(seed: &[u8]) -> [u8; 32] {
        seed_key(seed).expect("a seed")
    }

    /// Names printed by `frand.NewCustom(sha256(seed), 1024, 12)` with frand v1.5.1 (Go 1.26),
    /// drawing 7 characters of `0123456789abcdef` with `Intn`.
    #[test]
    fn matches_go() {
        for (seed, suffix) in [
            (&b"seed"[..], "614742c"),
            (&b"another seed"[..], "98049f1"),
            (&b"\x00\x01\x02"[..], "20be5a6"),
        ] {
            assert_eq!(
                unique_name(key(seed), "p-", 7, 255).expect("fits"),
                format!("p-{suffix}")
            );
        }
    }

    /// 150 draws cross four refills and one rekey; the same Go program printed these.
    #[test]
    fn matches_go_across_refills() {
        let expected = "614742c2d31fdb7169aa0171258e619a16d3ac6174afa46f7946b2e1a1b6ab3e2fe8543\
                        b2226095a20f9ea5aae04ed2d0202e5977e1b34db8507dff6c99e23aaf7297fec876f3219c85b65";
        assert_eq!(
            unique_name(key(b"seed"), "", 150, 0).expect("no limit"),
            expected
        );
    }

    #[test]
    fn prior_names_and_engine_options_come_first() {
        let auto = AutoName {
            tf_name: "name".into(),
            property: "name".into(),
            max_length: 10,
            separator: "-".into(),
            random_chars: 7,
        };
        let check = |prior: Option<&PropertyValue>, options: Option<&Autonaming>| {
            autoname(&auto, "r", "t:index/r:R", prior, options, key(b"seed"))
                .map_err(|e| e.to_string())
        };
        let prior = PropertyValue::String("kept".into());
        assert_eq!(check(Some(&prior), None), Ok("kept".into()));
        assert_eq!(check(None, None), Ok("r-614742c".into()));
        let propose = Autonaming::Propose("proposed".into());
        assert_eq!(check(None, Some(&propose)), Ok("proposed".into()));
        let long = Autonaming::Propose("much-too-long".into());
        assert_eq!(
            check(None, Some(&long)),
            Err("calculated name 'much-too-long' exceeds maximum length of 10".into())
        );
        let enforce = Autonaming::Enforce("much-too-long".into());
        assert_eq!(check(None, Some(&enforce)), Ok("much-too-long".into()));
        assert_eq!(
            check(None, Some(&Autonaming::Disable)),
            Err("automatic naming is disabled but no explicit name was provided".into())
        );
    }

    #[test]
    fn respects_the_maximum_length() {
        assert_eq!(unique_name(key(b"s"), "abc", 7, 8), None);
        let auto = AutoName {
            tf_name: "name".into(),
            property: "name".into(),
            max_length: 8,
            separator: "-".into(),
            random_chars: 7,
        };
        let err = autoname(&auto, "abc", "t:index/r:R", None, None, key(b"s"))
            .expect_err("no room for the suffix");
        assert_eq!(
            err.to_string(),
            "could not make instance of 't:index/r:R': name 'abc-' plus 7 random chars is longer \
             than maximum length 8"
        );
    }
}
