//! Terraform attribute paths rendered as the Go bridge renders them in check failures.

use tfp_cty::{Path, PathStep};
use tfp_translate::property_path;

use crate::support::*;
use crate::translate::schema;

fn check(steps: &[&str], expected: &str) {
    let steps = steps
        .iter()
        .map(|s| {
            if let Ok(n) = s.parse::<u64>() {
                PathStep::Index(n)
            } else if let Some(key) = s.strip_prefix('@') {
                PathStep::Key(key.to_owned())
            } else {
                PathStep::Attr((*s).to_owned())
            }
        })
        .collect();
    let m = mapping(schema(), block(&[], &[]));
    assert_eq!(property_path(&resource(&m), &Path(steps)), expected);
}

#[test]
fn renders_like_the_go_bridge() {
    check(&[], "");
    check(&["count_limit"], "countLimit");
    check(&["rule", "0", "from_port"], "rules[0].fromPort");
    check(&["config", "0", "mode"], "config.mode");
    check(&["single_config", "0", "level"], "singleConfig[?].level");
    check(&["filter", "1", "values", "0"], "filters.values[0]");
    check(&["zones", "2"], "zones");
    check(&["tags", "@Name"], "tags.Name");
    check(&["tags", "@a b"], r#"tags["a b"]"#);
    check(&["tags", "@9x"], r#"tags["9x"]"#);
    // Go's %q escapes what its Unicode tables call unprintable, not only controls: the line
    // separator and the soft hyphen were written raw by the copy this replaced.
    check(&["tags", "@a\u{2028}b\u{ad}"], r#"tags["a\u2028b\u00ad"]"#);
    check(&["named", "@k", "level"], "named.k.level");
    check(&["nested_obj", "inner_value"], "nestedObj.innerValue");
    check(
        &["nested_items", "3", "inner_secret"],
        "nestedItems[3].innerSecret",
    );
    check(&["endpoint", "host_name"], "endpoint.hostName");
    check(&["timeouts", "create"], "timeouts.create");
    check(&["not_in_schema", "deeper"], "not_in_schema.deeper");
}
