//! Why a package schema cannot be generated; `GetSchema` fails with it, as Go's does.

/// A schema generation failure.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    #[error("{tf_name}")]
    In {
        tf_name: String,
        #[source]
        source: Box<SchemaError>,
    },
    #[error("property {property:?}: tuple types are not supported")]
    Tuple { property: String },
    #[error("function {function:?}: tuple types are not supported")]
    FunctionTuple { function: String },
    #[error("function {function:?}: generated type token {token:?} is already defined")]
    TypeTaken { function: String, token: String },
    #[error(
        "function {function:?}: attribute {attribute:?}: property name {name:?} is already taken by another attribute"
    )]
    AttributeNameTaken {
        function: String,
        attribute: String,
        name: String,
    },
    #[error("provider function {function:?}: token {token:?} is already defined")]
    FunctionDefined { function: String, token: String },
    #[error(
        "TF function {function:?} and TF data source {data_source:?} are both mapped to the Pulumi token {token:?}; override one of the mappings to avoid the collision"
    )]
    FunctionShadowsDataSource {
        function: String,
        data_source: String,
        token: String,
    },
    #[error("internal error: {0}")]
    Internal(String),
}

impl SchemaError {
    /// This error, about the Terraform resource or data source `tf_name`.
    pub(crate) fn within(self, tf_name: &str) -> SchemaError {
        SchemaError::In {
            tf_name: tf_name.to_owned(),
            source: Box::new(self),
        }
    }
}
