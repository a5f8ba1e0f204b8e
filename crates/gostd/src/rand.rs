//! `math/rand/v2`: the [`ChaCha8`] generator, which Pulumi's autonaming draws its random
//! suffixes from (through `lukechampine.com/frand`, which is this generator).
//!
//! It is the C2SP `chacha8rand` construction (Go's `internal/chacha8rand`): four ChaCha8 blocks
//! (counters c…c+3, zero nonce, the key but not the constants added back) interleaved word by
//! word into 32 little-endian `u64`s; the counter advances by 4 and at 16 the last four words
//! become the next key (and are not output).

/// Words per chunk, counter step, counter at which to rekey, words used to rekey.
const CHUNK: usize = 32;
const STEP: u32 = 4;
const REKEY: u32 = 16;
const RESEED: usize = 4;

/// Go's `rand.ChaCha8`: a generator whose stream a 32-byte seed decides.
#[derive(Clone, Debug)]
pub struct ChaCha8 {
    seed: [u64; 4],
    buf: [u64; CHUNK],
    i: usize,
    n: usize,
    c: u32,
}

impl ChaCha8 {
    /// `rand.NewChaCha8(seed)`.
    pub fn new(seed: [u8; 32]) -> ChaCha8 {
        let word = |i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&seed[i * 8..i * 8 + 8]);
            u64::from_le_bytes(w)
        };
        let seed = [word(0), word(1), word(2), word(3)];
        ChaCha8 {
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

    /// The next 64 bits of the stream (`Uint64`).
    pub fn uint64(&mut self) -> u64 {
        if self.i >= self.n {
            self.refill();
        }
        let x = self.buf[self.i];
        self.i += 1;
        x
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
