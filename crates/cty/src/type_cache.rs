//! Shared types for decoded values: one `Arc<Type>` per position in the type being decoded.
//!
//! Only nulls and unknowns need this cache: collections take their element type from the type
//! being decoded, whose `Arc` they share, and primitive types have one allocation for the whole
//! process.
//!
//! Decoders look types up by address. That is sound because every address stays valid and unique
//! for the whole decode: the root type is borrowed for its duration, and types read from the input
//! (the type element of a dynamic value) are kept here until the decode ends.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, LazyLock};

use crate::Type;

#[derive(Default)]
pub(crate) struct TypeCache {
    shared: HashMap<*const Type, Arc<Type>, BuildHasherDefault<AddressHasher>>,
    kept: Vec<Arc<Type>>,
}

/// Hashes an address: the keys are addresses of live types, which no input chooses, so a
/// multiplicative hash serves and costs far less than the default SipHash on every null.
#[derive(Default)]
pub(crate) struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }

    fn finish(&self) -> u64 {
        // The high bits are the well-mixed ones; hashbrown takes its control bits from the top.
        self.0.rotate_left(32)
    }
}

impl TypeCache {
    /// The shared allocation holding a copy of the type at this address.
    pub(crate) fn share(&mut self, ty: &Type) -> Arc<Type> {
        // Primitive types, the most frequent by far, share one allocation for the whole process.
        if let Some(primitive) = primitive(ty) {
            return primitive;
        }
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

/// The process-wide allocation of a primitive (or dynamic) type.
pub(crate) fn primitive(ty: &Type) -> Option<Arc<Type>> {
    static STRING: LazyLock<Arc<Type>> = LazyLock::new(|| Arc::new(Type::String));
    static NUMBER: LazyLock<Arc<Type>> = LazyLock::new(|| Arc::new(Type::Number));
    static BOOL: LazyLock<Arc<Type>> = LazyLock::new(|| Arc::new(Type::Bool));
    static DYNAMIC: LazyLock<Arc<Type>> = LazyLock::new(|| Arc::new(Type::Dynamic));
    let shared = match ty {
        Type::String => &STRING,
        Type::Number => &NUMBER,
        Type::Bool => &BOOL,
        Type::Dynamic => &DYNAMIC,
        _ => return None,
    };
    Some(Arc::clone(shared))
}
