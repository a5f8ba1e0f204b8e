//! JSON encoding, following go-cty `cty/json/marshal.go`.

use crate::value::Kind;
use tfp_gostd::json::write_string;

use crate::{Error, Path, PathStep, Type, Value, msgpack::MAX_DEPTH};

pub(super) fn encode(value: &Value, ty: &Type) -> Result<Vec<u8>, Error> {
    let mut enc = Encoder {
        out: String::new(),
        path: Path::root(),
    };
    enc.value(value, ty, 0)?;
    Ok(enc.out.into_bytes())
}

struct Encoder {
    out: String,
    path: Path,
}

impl Encoder {
    fn fail(&self, reason: impl Into<String>) -> Error {
        Error::encode(&self.path, reason)
    }

    fn value(&mut self, value: &Value, ty: &Type, depth: usize) -> Result<(), Error> {
        if depth > MAX_DEPTH {
            return Err(self.fail("value is nested too deeply"));
        }
        if !value.is_known() {
            return Err(self.fail("value is not known"));
        }
        if *ty == Type::Dynamic {
            if matches!(&value.kind, Kind::Null(t) if **t == Type::Dynamic) {
                self.out.push_str("null");
                return Ok(());
            }
            let actual = value.ty();
            self.out.push_str("{\"value\":");
            self.value(value, &actual, depth + 1)?;
            self.out.push_str(",\"type\":");
            self.out.push_str(&actual.to_json_string());
            self.out.push('}');
            return Ok(());
        }
        match (&value.kind, ty) {
            (Kind::Null(_), _) => self.out.push_str("null"),
            (Kind::String(s), Type::String) => write_string(&mut self.out, s),
            (Kind::Number(n), Type::Number) => {
                if n.is_infinite() {
                    return Err(self.fail("cannot encode infinity as JSON"));
                }
                self.out.push_str(&n.to_decimal_string());
            }
            (Kind::Bool(b), Type::Bool) => self.out.push_str(if *b { "true" } else { "false" }),
            (Kind::List(_, items), Type::List(e)) | (Kind::Set(_, items), Type::Set(e)) => {
                self.sequence(items.iter().map(|item| (item, &**e)), depth)?;
            }
            (Kind::Tuple(items), Type::Tuple(types)) => {
                if items.len() != types.len() {
                    return Err(self.fail(format!(
                        "a tuple of {} elements is required, found {}",
                        types.len(),
                        items.len()
                    )));
                }
                self.sequence(items.iter().zip(types), depth)?;
            }
            (Kind::Map(_, items), Type::Map(e)) => {
                self.out.push('{');
                for (i, (key, item)) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    write_string(&mut self.out, key);
                    self.out.push(':');
                    self.path.push(PathStep::Key(key.clone()));
                    self.value(item, e, depth + 1)?;
                    self.path.pop();
                }
                self.out.push('}');
            }
            (Kind::Object(attrs), Type::Object { attributes, .. }) => {
                if let Some(extra) = attrs.keys().find(|k| !attributes.contains_key(*k)) {
                    return Err(self.fail(format!("attribute {extra:?} is not in the object type")));
                }
                self.out.push('{');
                for (i, (name, t)) in attributes.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    write_string(&mut self.out, name);
                    self.out.push(':');
                    match attrs.get(name) {
                        Some(attr) => {
                            self.path.push(PathStep::Attr(name.clone()));
                            self.value(attr, t, depth + 1)?;
                            self.path.pop();
                        }
                        None => self.out.push_str("null"),
                    }
                }
                self.out.push('}');
            }
            (_, ty) => {
                return Err(self.fail(format!(
                    "a value of type {} is required",
                    ty.to_json_string()
                )));
            }
        }
        Ok(())
    }

    fn sequence<'v>(
        &mut self,
        items: impl Iterator<Item = (&'v Value, &'v Type)>,
        depth: usize,
    ) -> Result<(), Error> {
        self.out.push('[');
        for (i, (item, t)) in items.enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.path.push(PathStep::Index(i as u64));
            self.value(item, t, depth + 1)?;
            self.path.pop();
        }
        self.out.push(']');
        Ok(())
    }
}
