//! Every imitation checked against what Go itself does: the vectors in `testdata/` were
//! captured from Go's standard library (see `testdata/README.md`), and each test compares our
//! output byte for byte.

mod big;
mod json;
mod rand;
mod strconv;
mod support;
