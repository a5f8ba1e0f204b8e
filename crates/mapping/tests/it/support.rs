//! The mapping of a test's provider; its schema comes from the workspace's builders
//! (`tfp-testkit`).

use tfp_cty::ProviderSchema;
use tfp_mapping::{Mapping, Options};

pub(crate) fn map(schema: ProviderSchema, provider_type: &str, options: Options) -> Mapping {
    Mapping::new(schema, provider_type, "1.0.0", options).expect("the mapping builds")
}
