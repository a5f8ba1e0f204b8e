//! The implied value type of a schema: the cty type of the values Terraform sends for a block.
//!
//! Follows OpenTofu `configschema` (`implied_type.go`, `decoder_spec.go`): a block is an object
//! with one attribute per schema attribute and per nested block type. Single and group blocks are
//! objects, list/set/map blocks are `list(object)`, `set(object)` and `map(object)`, except that a
//! list or map block whose own type contains `dynamic` anywhere becomes a tuple or object of
//! unpredictable shape, whose implied type is therefore `dynamic` (a `[type, value]` pair on the
//! wire). Nested attributes mark their optional and computed attributes optional in the "spec"
//! type; the implied (wire) type strips every optional marker, because every attribute is always
//! present on the wire. A block type whose name is also an attribute name is ignored, as Terraform
//! ignores it.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::{Attribute, AttributeType, Block, NestedBlock, NestedObject, NestingMode, Type};

impl Block {
    /// The type of this block's values on the wire.
    pub fn implied_type(&self) -> Type {
        self.spec_type().without_optional_attributes()
    }

    /// The type before optional markers are stripped (what Terraform decodes configuration with).
    fn spec_type(&self) -> Type {
        let mut attributes: BTreeMap<String, Type> = self
            .attributes
            .iter()
            .map(|(name, attr)| (name.clone(), attr.spec_type()))
            .collect();
        for (name, nested) in &self.block_types {
            if attributes.contains_key(name) {
                continue;
            }
            attributes.insert(name.clone(), nested.spec_type());
        }
        Type::object(attributes)
    }
}

impl NestedBlock {
    /// The type of this nested block's values on the wire, inside its parent's object:
    /// `dynamic` when a list or map block contains dynamic types.
    pub fn implied_type(&self) -> Type {
        self.spec_type().without_optional_attributes()
    }

    /// Whether the wire carries this block as a dynamic `[type, value]` pair: a list block as a
    /// tuple of objects, a map block as an object of objects keyed by label.
    pub fn is_dynamic_pair(&self) -> bool {
        matches!(self.nesting, NestingMode::List | NestingMode::Map)
            && self.block.spec_type().has_dynamic()
    }

    fn spec_type(&self) -> Type {
        let child = self.block.spec_type();
        match self.nesting {
            NestingMode::Single | NestingMode::Group => child,
            NestingMode::List if child.has_dynamic() => Type::Dynamic,
            NestingMode::List => Type::List(Arc::new(child)),
            // Terraform forbids dynamic types inside set blocks, so there is no exception here.
            NestingMode::Set => Type::Set(Arc::new(child)),
            NestingMode::Map if child.has_dynamic() => Type::Dynamic,
            NestingMode::Map => Type::Map(Arc::new(child)),
        }
    }
}

impl Attribute {
    /// The type of this attribute's values on the wire.
    pub fn implied_type(&self) -> Type {
        self.spec_type().without_optional_attributes()
    }

    fn spec_type(&self) -> Type {
        match &self.ty {
            AttributeType::Type(t) => t.clone(),
            AttributeType::Nested(object) => object.spec_type(),
        }
    }
}

impl NestedObject {
    /// The type of these nested attributes' values on the wire.
    pub fn implied_type(&self) -> Type {
        self.spec_type().without_optional_attributes()
    }

    /// The type with optional and computed attributes marked optional, as Terraform uses it to
    /// decode configuration (`Object.SpecType`).
    pub fn spec_type(&self) -> Type {
        let attributes = self
            .attributes
            .iter()
            .map(|(name, attr)| (name.clone(), attr.spec_type()))
            .collect();
        let optional = self
            .attributes
            .iter()
            .filter(|(_, attr)| attr.optional || attr.computed)
            .map(|(name, _)| name.clone())
            .collect();
        let object = Type::Object {
            attributes,
            optional,
        };
        match self.nesting {
            NestingMode::Single | NestingMode::Group => object,
            NestingMode::List => Type::List(Arc::new(object)),
            NestingMode::Set => Type::Set(Arc::new(object)),
            NestingMode::Map => Type::Map(Arc::new(object)),
        }
    }
}
