//! Nested object types of one module, declared in the order the Go generator walks
//! properties (`gatherSchemaNestedTypesForModule`, `declareType`, `genObjectType`).
//!
//! A type name declared again (the same type used as input, output and state) keeps the
//! last declaration's properties and required list, and remembers its last input and last output
//! declarations: when one differs from the final required list, the type
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
    /// The last declarations as an input and as an output; their required lists are only
    /// compared at the end.
    last_input: Option<Rc<Object>>,
    last_output: Option<Rc<Object>>,
}

/// The object spec of a list of properties for one use: properties by Pulumi name, required
/// ones in Terraform key order.
pub(crate) fn object_spec<'v>(
    props: impl IntoIterator<Item = &'v Var>,
    use_: Use,
) -> ObjectTypeSpec {
    let mut spec = ObjectTypeSpec {
        ty: "object".into(),
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

fn required(props: &[Var], use_: Use) -> BTreeSet<&str> {
    props
        .iter()
        .filter(|p| !p.optional(use_))
        .map(|p| p.name.as_str())
        .collect()
}

impl Registry {
    /// Declares every object type reachable from `props` for `use_`, depth first.
    pub(crate) fn gather<'v>(&mut self, props: impl IntoIterator<Item = &'v Var>, use_: Use) {
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
        let last = Some(Rc::clone(object));
        if let Some(entry) = self.entries.get_mut(&object.name) {
            entry.object = Rc::clone(object);
            entry.last_use = use_;
            match use_ {
                Use::Input => entry.last_input = last,
                Use::Output => entry.last_output = last,
            }
        } else {
            let (last_input, last_output) = match use_ {
                Use::Input => (last, None),
                Use::Output => (None, last),
            };
            let entry = Entry {
                object: Rc::clone(object),
                last_use: use_,
                last_input,
                last_output,
            };
            self.entries.insert(object.name.clone(), entry);
        }
    }

    /// The declared types, by name, with their Node.js required lists.
    pub(crate) fn finish(self) -> impl Iterator<Item = (String, ObjectTypeSpec)> {
        self.entries.into_iter().map(|(name, entry)| {
            let last_required = required(&entry.object.props, entry.last_use);
            let differs = |last: Option<&Rc<Object>>, use_: Use| {
                let other = last.map(|o| required(&o.props, use_)).unwrap_or_default();
                (other != last_required).then(|| other.into_iter().map(str::to_owned).collect())
            };
            let node = NodeRequired {
                required_inputs: differs(entry.last_input.as_ref(), Use::Input),
                required_outputs: differs(entry.last_output.as_ref(), Use::Output),
            };
            let mut spec = object_spec(&entry.object.props, entry.last_use);
            if node.required_inputs.is_some() || node.required_outputs.is_some() {
                spec.language = Some(TypeLanguage { nodejs: node });
            }
            (name, spec)
        })
    }
}
