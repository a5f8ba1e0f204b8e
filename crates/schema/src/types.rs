//! Nested object types of one module, declared in the order the Go generator walks
//! properties (`gatherSchemaNestedTypesForModule`, `declareType`, `genObjectType`).
//!
//! A type name declared again (the same type used as input, output and state) keeps the
//! last declaration's properties and required list, and remembers its last input and last output
//! declarations: when one differs from the final required list, the type
//! gets `language.nodejs.requiredInputs` / `requiredOutputs` (an output-only type with
//! required properties gets `requiredInputs: []`, as in Go).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use std::sync::Arc;

use crate::props::{Object, Ty, Use, Var};
use crate::spec::{NodeRequired, ObjectTypeSpec, TypeLanguage};

/// The nested types declared by the members of one module.
#[derive(Debug, Default)]
pub(crate) struct Registry<'m> {
    entries: BTreeMap<String, Entry<'m>>,
}

#[derive(Debug)]
struct Entry<'m> {
    /// The last declaration and its use.
    object: Rc<Object<'m>>,
    last_use: Use,
    /// The last declarations as an input and as an output; their required lists are only
    /// compared at the end.
    last_input: Option<Rc<Object<'m>>>,
    last_output: Option<Rc<Object<'m>>>,
}

/// The uses a walk declares types for.
#[derive(Clone, Copy)]
enum Uses {
    One(Use),
    /// As an output, then as an input: a resource's state after its outputs.
    OutputThenInput,
}

/// The object spec of a list of properties for one use: properties by Pulumi name, required
/// ones in Terraform key order.
pub(crate) fn object_spec<'v, 'm: 'v>(
    props: impl IntoIterator<Item = &'v Var<'m>>,
    use_: Use,
) -> ObjectTypeSpec<'m> {
    let mut properties = Vec::new();
    let mut required = Vec::new();
    for p in props {
        properties.push((Cow::Borrowed(p.name), Arc::clone(&p.spec)));
        if !p.optional(use_) {
            required.push(Cow::Borrowed(p.name));
        }
    }
    ObjectTypeSpec {
        ty: "object".into(),
        properties: properties.into_iter().collect(),
        required,
        ..ObjectTypeSpec::default()
    }
}

fn required<'m>(props: &[Var<'m>], use_: Use) -> BTreeSet<&'m str> {
    props
        .iter()
        .filter(|p| !p.optional(use_))
        .map(|p| p.name)
        .collect()
}

impl<'m> Registry<'m> {
    /// Declares every object type reachable from `props` for `use_`, depth first.
    pub(crate) fn gather<'v>(&mut self, props: impl IntoIterator<Item = &'v Var<'m>>, use_: Use)
    where
        'm: 'v,
    {
        for p in props {
            self.gather_type(&p.ty, Uses::One(use_));
        }
    }

    /// What `gather(props, Output)` then `gather(props, Input)` leave, in one walk: the second
    /// walk visits the same types in the same order, so each type's last declaration, last
    /// output and last input are the ones this walk meets last.
    pub(crate) fn gather_as_output_then_input(&mut self, props: &[Var<'m>]) {
        for p in props {
            self.gather_type(&p.ty, Uses::OutputThenInput);
        }
    }

    fn gather_type(&mut self, ty: &Ty<'m>, uses: Uses) {
        match ty {
            Ty::Any | Ty::Primitive(_) => {}
            Ty::Array(e) | Ty::Map(e) => self.gather_type(e, uses),
            Ty::Object(object) => {
                self.declare(object, uses);
                for p in &object.props {
                    self.gather_type(&p.ty, uses);
                }
            }
        }
    }

    fn declare(&mut self, object: &Rc<Object<'m>>, uses: Uses) {
        let (last_use, input, output) = match uses {
            Uses::One(Use::Input) => (Use::Input, true, false),
            Uses::One(Use::Output) => (Use::Output, false, true),
            Uses::OutputThenInput => (Use::Input, true, true),
        };
        let last = || Some(Rc::clone(object));
        if let Some(entry) = self.entries.get_mut(&object.name) {
            entry.object = Rc::clone(object);
            entry.last_use = last_use;
            if input {
                entry.last_input = last();
            }
            if output {
                entry.last_output = last();
            }
        } else {
            let entry = Entry {
                object: Rc::clone(object),
                last_use,
                last_input: if input { last() } else { None },
                last_output: if output { last() } else { None },
            };
            self.entries.insert(object.name.clone(), entry);
        }
    }

    /// The declared types, by name, with their Node.js required lists.
    pub(crate) fn finish(self) -> impl Iterator<Item = (String, ObjectTypeSpec<'m>)> {
        self.entries.into_iter().map(|(name, entry)| {
            let props = &entry.object.props;
            let last_required = std::cell::OnceCell::new();
            let differs = |last: Option<&Rc<Object<'m>>>, use_: Use| {
                // The same object, its properties optional alike for both uses (most types):
                // the lists are equal, and need not be built to see it.
                if last.is_some_and(|o| Rc::ptr_eq(o, &entry.object))
                    && props
                        .iter()
                        .all(|p| p.optional(use_) == p.optional(entry.last_use))
                {
                    return None;
                }
                let other = last.map(|o| required(&o.props, use_)).unwrap_or_default();
                let last_required = last_required.get_or_init(|| required(props, entry.last_use));
                (other != *last_required).then(|| other.into_iter().map(Cow::Borrowed).collect())
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
