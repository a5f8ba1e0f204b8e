//! How set work grows with a set's size, for `cargo xtask bench values`
//! (`cargo bench -p tfp-cty --bench sets`).
//!
//! Set equality, the looser equality `ProposedNew` correlates by, the elements one set lacks (a
//! detailed diff's question) and building a set (deduplicated, in go-cty's order) each take their
//! elements by hash. Each is timed on sets of strings of two sizes, one four times the other; the
//! bench prints one JSON object per operation with the medians and `growth`, the large size's
//! time over the small one's: about 4 for work linear in the size (a little more for the sort in
//! building), 16 for quadratic. Timing only: nothing here asserts on speed.

use std::time::{Duration, Instant};

use tfp_cty::{Type, Value};

const SMALL: usize = 25_000;
const RUNS: usize = 7;

fn strings(prefix: &str, n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| Value::string(format!("{prefix}-{:08}", (i * 7919) % n)))
        .collect()
}

fn median(mut runs: Vec<Duration>) -> f64 {
    runs.sort_unstable();
    runs[runs.len() / 2].as_secs_f64() * 1000.0
}

/// The median time of `op` on inputs made by `input` for `n` elements.
fn time<I>(n: usize, input: &dyn Fn(usize) -> I, op: &dyn Fn(&I) -> usize) -> f64 {
    let runs = (0..RUNS)
        .map(|_| {
            let made = input(n);
            let started = Instant::now();
            std::hint::black_box(op(&made));
            started.elapsed()
        })
        .collect();
    median(runs)
}

fn report<I>(name: &str, input: &dyn Fn(usize) -> I, op: &dyn Fn(&I) -> usize) {
    let small = time(SMALL, input, op);
    let large = time(4 * SMALL, input, op);
    println!(
        "{}",
        serde_json::json!({
            "name": name,
            "small": SMALL,
            "small_ms": small,
            "large": 4 * SMALL,
            "large_ms": large,
            "growth": large / small,
        })
    );
}

fn main() {
    // The same elements in two orders, as a provider and a prior state may hold them.
    let orders = |n: usize| {
        let items = strings("tag", n);
        let mut reversed = items.clone();
        reversed.reverse();
        (
            Value::set_in_order(Type::String, items),
            Value::set_in_order(Type::String, reversed),
        )
    };
    report("set_equality", &orders, &|(a, b)| usize::from(a == b));
    report("set_loose_equality", &orders, &|(a, b)| {
        usize::from(a.loosely_equals(b))
    });
    report(
        "set_elements_not_in",
        &|n| (strings("old", n), strings("new", n)),
        &|(a, b)| tfp_cty::elements_not_in(a, b).len(),
    );
    report("set_build", &|n| strings("item", n), &|items| {
        Value::set(Type::String, items.clone()).len().unwrap_or(0)
    });
}
