//! Shared types for decoded values: one `Arc<Type>` per position in the type being decoded.
//!
//! Decoders look types up by address. That is sound because every address stays valid and unique
//! for the whole decode: the root type is borrowed for its duration, and types read from the input
//! (the type element of a dynamic value) are kept here until the decode ends.

use std::collections::HashMap;
use std::sync::Arc;

use crate::Type;

#[derive(Default)]
pub(crate) struct TypeCache {
    shared: HashMap<*const Type, Arc<Type>>,
    kept: Vec<Arc<Type>>,
}

impl TypeCache {
    /// The shared allocation holding a copy of the type at this address.
    pub(crate) fn share(&mut self, ty: &Type) -> Arc<Type> {
        self.shared
            .entry(std::ptr::from_ref(ty))
            .or_insert_with(|| Arc::new(ty.clone()))
            .clone()
    }

    /// Keeps a type read from the input alive for the rest of the decode, and shares it.
    pub(crate) fn keep(&mut self, ty: Type) -> Arc<Type> {
        let ty = Arc::new(ty);
        self.shared.insert(Arc::as_ptr(&ty), ty.clone());
        self.kept.push(ty.clone());
        ty
    }
}
