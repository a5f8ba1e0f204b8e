//! `math/rand/v2`: the `ChaCha8` stream, across refills and rekeys.

use tfp_gostd::rand::ChaCha8;

use crate::support::{bytes, vectors};

#[test]
fn chacha8_is_go_s_stream() {
    for vector in vectors("rand_chacha8.jsonl") {
        let seed: [u8; 32] = bytes(&vector, "seed").try_into().expect("a 32-byte seed");
        let go = vector["uint64"].as_array().expect("a list of draws");
        let mut rng = ChaCha8::new(seed);
        for (i, draw) in go.iter().enumerate() {
            let draw = u64::from_str_radix(draw.as_str().expect("hex text"), 16).expect("hex");
            assert_eq!(rng.uint64(), draw, "seed {seed:x?}, draw {i}");
        }
    }
}
