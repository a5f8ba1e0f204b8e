//! Nested object types of one module, declared in the order the Go generator walks
//! properties (`gatherSchemaNestedTypesForModule`, `declareType`, `genObjectType`).
//!
//! A type name declared again (the same type used as input, output and state) keeps the
//! last declaration's properties and required list, and remembers the required lists of its
//! last input and last output use: when one differs from the final required list, the type
//! gets `language.nodejs.requiredInputs` / `requiredOutputs` (an output-only type with
//! required properties gets `requiredInputs: []`, as in Go).

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use crate::props::{Object, Ty, Use, Var};
use crate::spec::{NodeRequired, ObjectTypeSpec, TypeLanguage};

/// The nested types declared by the members of one module.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    entries: BTreeMap<String, Entry>,
}

#[derive(Debug)]
struct Entry {
    /// The last declaration and its use.
    object: Rc<Object>,
    last_use: Use,
    required_inputs: Option<BTreeSet<String>>,
    required_outputs: Option<BTreeSet<String>>,
}

/// The object spec of a list of properties for one use: properties by Pulumi name, required
/// ones in Terraform key order.
pub(crate) fn object_spec<'v>(
    props: impl IntoIterator<Item = &'v Var>,
    use_: Use,
) -> ObjectTypeSpec {
    let mut spec = ObjectTypeSpec {
        ty: "object".to_owned(),
        ..ObjectTypeSpec::default()
    };
    for p in props {
        spec.properties.insert(p.name.clone(), p.spec.clone());
        if !p.optional(use_) {
            spec.required.push(p.name.clone());
        }
    }
    spec
}

fn required(props: &[Var], use_: Use) -> BTreeSet<String> {
    props
        .iter()
        .filter(|p| !p.optional(use_))
        .map(|p| p.name.clone())
        .collect()
}

impl Registry {
    /// Declares every object type reachable from `props` for `use_`, depth first.
    pub(crate) fn gather(&mut self, props: &[Var], use_: Use) {
        for p in props {
            self.gather_type(&p.ty, use_);
        }
    }

    fn gather_type(&mut self, ty: &Ty, use_: Use) {
        match ty {
            Ty::Any | Ty::Primitive(_) => {}
            Ty::Array(e) | Ty::Map(e) => self.gather_type(e, use_),
            Ty::Object(object) => {
                self.declare(object, use_);
                self.gather(&object.props, use_);
            }
        }
    }

    fn declare(&mut self, object: &Rc<Object>, use_: Use) {
        let required = required(&object.props, use_);
        let (inputs, outputs) = match use_ {
            Use::Input => (Some(required), None),
            Use::Output => (None, Some(required)),
        };
        match self.entries.get_mut(&object.name) {
            Some(entry) => {
                entry.object = Rc::clone(object);
                entry.last_use = use_;
                if inputs.is_some() {
                    entry.required_inputs = inputs;
                } else {
                    entry.required_outputs = outputs;
                }
            }
            None => {
                self.entries.insert(
                    object.name.clone(),
                    Entry {
                        object: Rc::clone(object),
                        last_use: use_,
                        required_inputs: inputs,
                        required_outputs: outputs,
                    },
                );
            }
        }
    }

    /// The declared types, by name, with their Node.js required lists.
    pub(crate) fn finish(self) -> impl Iterator<Item = (String, ObjectTypeSpec)> {
        self.entries.into_iter().map(|(name, entry)| {
            let required = required(&entry.object.props, entry.last_use);
            let differs = |other: Option<BTreeSet<String>>| {
                let other = other.unwrap_or_default();
                (other != required).then(|| other.into_iter().collect::<Vec<_>>())
            };
            let node = NodeRequired {
                required_inputs: differs(entry.required_inputs),
                required_outputs: differs(entry.required_outputs),
            };
            let mut spec = object_spec(&entry.object.props, entry.last_use);
            if node.required_inputs.is_some() || node.required_outputs.is_some() {
                spec.language = Some(TypeLanguage { nodejs: node });
            }
            (name, spec)
        })
    }
}
