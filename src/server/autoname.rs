//! Autonaming of a resource's `name` input (pulumi-terraform-bridge
//! `pkg/tfbridge/info/autonaming.go`): the prior
//! name, else what the engine's autonaming options say, else `<urn name>-<7 hex chars>` drawn
//! deterministically from Check's random seed.
//!
//! The random suffix is Pulumi's `resource.NewUniqueName`, which draws from
//! `lukechampine.com/frand` v1.5.1 seeded with SHA-256 of the seed. That frand is Go's
//! `math/rand/v2` ChaCha8 generator, the C2SP `chacha8rand` construction: four ChaCha8 blocks
//! (counters c…c+3, zero nonce, the key but not the constants added back) interleaved word by
//! word into 32 little-endian `u64`s; the counter advances by 4 and at 16 the last four words
//! become the next key (and are not output). `Intn(16)` rejects values at or above the largest
//! multiple of 16 and takes the rest modulo 16. Reproducing it exactly gives the names the Go
//! binary gives, so a program moved between the two binaries keeps its resources.

use sha2::{Digest as _, Sha256};
use tfp_mapping::AutoName;
use tfp_values::PropertyValue;

use crate::{proto::pulumirpc::check_request::AutonamingOptions, server::error::Error};

/// The characters of the random suffix.
const CHARSET: &[u8] = b"0123456789abcdef";
/// Words per chunk, counter step, counter at which to rekey, words used to rekey.
const CHUNK: usize = 32;
const STEP: u32 = 4;
const REKEY: u32 = 16;
const RESEED: usize = 4;

/// Go's `chacha8rand.State`.
struct ChaCha8Rand {
    seed: [u64; 4],
    buf: [u64; CHUNK],
    i: usize,
    n: usize,
    c: u32,
}

impl ChaCha8Rand {
    fn new(seed: [u8; 32]) -> ChaCha8Rand {
        let word = |i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&seed[i * 8..i * 8 + 8]);
            u64::from_le_bytes(w)
        };
        let seed = [word(0), word(1), word(2), word(3)];
        ChaCha8Rand {
            seed,
            buf: block(&seed, 0),
            i: 0,
            n: CHUNK,
            c: 0,
        }
    }

    fn refill(&mut self) {
        self.c += STEP;
        if self.c == REKEY {
            self.seed.copy_from_slice(&self.buf[CHUNK - RESEED..]);
            self.c = 0;
        }
        self.buf = block(&self.seed, self.c);
        self.i = 0;
        self.n = if self.c == REKEY - STEP {
            CHUNK - RESEED
        } else {
            CHUNK
        };
    }

    fn next_u64(&mut self) -> u64 {
        if self.i >= self.n {
            self.refill();
        }
        let x = self.buf[self.i];
        self.i += 1;
        x
    }

    /// frand's `Intn(n)`.
    fn intn(&mut self, n: u64) -> u64 {
        let max = u64::MAX - u64::MAX % n;
        loop {
            let i = self.next_u64();
            if i < max {
                return i % n;
            }
        }
    }
}

/// Four interleaved ChaCha8 blocks for counters `counter…counter+3`.
fn block(seed: &[u64; 4], counter: u32) -> [u64; CHUNK] {
    const CONSTANTS: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];
    let mut flat = [0u32; 64];
    for lane in 0..4u32 {
        let mut x = [0u32; 16];
        x[..4].copy_from_slice(&CONSTANTS);
        for (k, word) in seed.iter().enumerate() {
            // Truncation is the point: each u64 holds two key words.
            x[4 + 2 * k] = *word as u32;
            x[5 + 2 * k] = (*word >> 32) as u32;
        }
        x[12] = counter.wrapping_add(lane);
        let key = x;
        for _ in 0..4 {
            quarter(&mut x, 0, 4, 8, 12);
            quarter(&mut x, 1, 5, 9, 13);
            quarter(&mut x, 2, 6, 10, 14);
            quarter(&mut x, 3, 7, 11, 15);
            quarter(&mut x, 0, 5, 10, 15);
            quarter(&mut x, 1, 6, 11, 12);
            quarter(&mut x, 2, 7, 8, 13);
            quarter(&mut x, 3, 4, 9, 14);
        }
        for (w, value) in x.iter().enumerate() {
            let out = if (4..12).contains(&w) {
                value.wrapping_add(key[w])
            } else {
                *value
            };
            flat[w * 4 + lane as usize] = out;
        }
    }
    let mut buf = [0u64; CHUNK];
    for (j, word) in buf.iter_mut().enumerate() {
        *word = u64::from(flat[2 * j]) | (u64::from(flat[2 * j + 1]) << 32);
    }
    buf
}

fn quarter(x: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(16);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(12);
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(8);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(7);
}

/// Pulumi's `NewUniqueName(seed, prefix, randlen, maxlen, nil)`.
pub fn unique_name(
    seed: &[u8],
    prefix: &str,
    randlen: usize,
    maxlen: usize,
) -> Result<String, String> {
    if maxlen > 0 && prefix.len() + randlen > maxlen {
        return Err(format!(
            "name '{prefix}' plus {randlen} random chars is longer than maximum length {maxlen}"
        ));
    }
    let seed: [u8; 32] = if seed.is_empty() {
        fresh_seed()
    } else {
        Sha256::digest(seed).into()
    };
    let mut rng = ChaCha8Rand::new(seed);
    let mut name = prefix.to_owned();
    for _ in 0..randlen {
        let i = rng.intn(CHARSET.len() as u64);
        name.push(char::from(CHARSET[usize::try_from(i).unwrap_or(0)]));
    }
    Ok(name)
}

/// A seed for an engine that sent none: not reproducible, as in Go.
fn fresh_seed() -> [u8; 32] {
    let mut hasher = Sha256::new();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    hasher.update(now.as_nanos().to_le_bytes());
    hasher.update(std::process::id().to_le_bytes());
    let local = 0u8;
    hasher.update(format!("{:p}", &raw const local));
    hasher.finalize().into()
}

/// The name to fill in for a resource whose inputs have no `name` (`ComputeAutoNameDefault`).
pub fn name(
    auto: &AutoName,
    urn_name: &str,
    resource_type: &str,
    prior: Option<&PropertyValue>,
    options: Option<&AutonamingOptions>,
    seed: &[u8],
) -> Result<String, Error> {
    if let Some(PropertyValue::String(prior)) = prior.map(|p| p.peel_secret().0) {
        return Ok(prior.clone());
    }
    use crate::proto::pulumirpc::check_request::autonaming_options::Mode;
    if let Some(options) = options {
        return match Mode::try_from(options.mode) {
            Ok(Mode::Enforce) => Ok(options.proposed_name.clone()),
            Ok(Mode::Disable) => Err(Error::Invalid(
                "automatic naming is disabled but no explicit name was provided".to_owned(),
            )),
            Ok(Mode::Propose) | Err(_) => {
                let proposed = &options.proposed_name;
                if auto.max_length > 0 && proposed.len() > auto.max_length {
                    return Err(Error::Invalid(format!(
                        "calculated name '{proposed}' exceeds maximum length of {}",
                        auto.max_length
                    )));
                }
                Ok(proposed.clone())
            }
        };
    }
    let prefix = format!("{urn_name}{}", auto.separator);
    unique_name(seed, &prefix, auto.random_chars, auto.max_length).map_err(|reason| {
        Error::Invalid(format!(
            "could not make instance of '{resource_type}': {reason}"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
                unique_name(seed, "p-", 7, 255).expect("fits"),
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
            unique_name(b"seed", "", 150, 0).expect("no limit"),
            expected
        );
    }

    #[test]
    fn prior_names_and_engine_options_come_first() {
        use crate::proto::pulumirpc::check_request::autonaming_options::Mode;
        let auto = AutoName {
            tf_name: "name".into(),
            property: "name".into(),
            max_length: 10,
            separator: "-".into(),
            random_chars: 7,
        };
        let options = |mode: Mode, proposed: &str| AutonamingOptions {
            proposed_name: proposed.into(),
            mode: mode as i32,
        };
        let check = |prior: Option<&PropertyValue>, options: Option<&AutonamingOptions>| {
            name(&auto, "r", "t:index/r:R", prior, options, b"seed").map_err(|e| e.to_string())
        };
        let prior = PropertyValue::String("kept".into());
        assert_eq!(check(Some(&prior), None), Ok("kept".into()));
        assert_eq!(check(None, None), Ok("r-614742c".into()));
        let propose = options(Mode::Propose, "proposed");
        assert_eq!(check(None, Some(&propose)), Ok("proposed".into()));
        let long = options(Mode::Propose, "much-too-long");
        assert_eq!(
            check(None, Some(&long)),
            Err("calculated name 'much-too-long' exceeds maximum length of 10".into())
        );
        let enforce = options(Mode::Enforce, "much-too-long");
        assert_eq!(check(None, Some(&enforce)), Ok("much-too-long".into()));
        let disable = options(Mode::Disable, "");
        assert_eq!(
            check(None, Some(&disable)),
            Err("automatic naming is disabled but no explicit name was provided".into())
        );
    }

    #[test]
    fn respects_the_maximum_length() {
        assert_eq!(
            unique_name(b"s", "abc", 7, 8),
            Err("name 'abc' plus 7 random chars is longer than maximum length 8".to_owned())
        );
    }
}
