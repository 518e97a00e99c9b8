//! Values as the metadata describes them: reading one value of a class (primitives, strings, nested structs, arrays,
//! constant-pool references left as keys) into a generic [`Value`], or stepping over it without building anything.

use super::bytes::{Cursor, RawString, Read};
use super::metadata::{Field, Kind, Metadata};

/// Nesting no JDK type needs; deeper is a damaged file (or a class that contains itself inline).
const MAX_DEPTH: usize = 32;

/// One value of a chunk. Integers of every width are `Int`; `char` is a UTF-16 unit.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Char(u16),
    Float(f64),
    String(String),
    /// The fields of a struct of class `type_id`, in the metadata's order.
    Struct {
        type_id: u64,
        fields: Vec<Value>,
    },
    Array(Vec<Value>),
    /// A key into the constant pool of `type_id` (strings use the `java.lang.String` pool).
    PoolRef {
        type_id: u64,
        key: u64,
    },
}

impl Value {
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(value) => Some(*value),
            Value::Char(unit) => Some(i64::from(*unit)),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(flag) => Some(*flag),
            _ => None,
        }
    }
}

/// Reads and skips values of one chunk's classes.
pub struct ValueReader<'m> {
    pub metadata: &'m Metadata,
    /// The id of `java.lang.String`, for strings written as pool keys.
    string_type_id: u64,
}

impl<'m> ValueReader<'m> {
    pub fn new(metadata: &'m Metadata) -> ValueReader<'m> {
        let string_type_id = metadata.class_named("java.lang.String").map_or(u64::MAX, |class| class.id);
        ValueReader { metadata, string_type_id }
    }

    /// One value of class `type_id`, written inline.
    pub fn read(&self, cursor: &mut Cursor<'_>, type_id: u64) -> Read<Value> {
        self.read_nested(cursor, type_id, 0)
    }

    fn read_nested(&self, cursor: &mut Cursor<'_>, type_id: u64, depth: usize) -> Read<Value> {
        let class = self
            .metadata
            .class(type_id)
            .ok_or_else(|| cursor.malformed(format!("a value of unknown class {type_id}")))?;
        Ok(match class.kind {
            Kind::Boolean => Value::Bool(cursor.bool()?),
            Kind::Byte => Value::Int(i64::from(cursor.u8()? as i8)),
            Kind::Char => Value::Char(cursor.char()?),
            Kind::Short => Value::Int(i64::from(cursor.short()?)),
            Kind::Int => Value::Int(i64::from(cursor.int()?)),
            Kind::Long => Value::Int(cursor.long()? as i64),
            Kind::Float => Value::Float(f64::from(cursor.float()?)),
            Kind::Double => Value::Float(cursor.double()?),
            Kind::String => match cursor.string()? {
                RawString::Null => Value::Null,
                RawString::Text(text) => Value::String(text),
                RawString::PoolRef(key) => Value::PoolRef { type_id: self.string_type_id, key },
            },
            Kind::Struct => {
                if depth > MAX_DEPTH {
                    return Err(cursor.malformed(format!("{} nested deeper than any JDK type", class.name)));
                }
                let mut fields = Vec::with_capacity(class.fields.len());
                for field in &class.fields {
                    fields.push(self.read_field(cursor, field, depth + 1)?);
                }
                Value::Struct { type_id, fields }
            }
        })
    }

    fn read_field(&self, cursor: &mut Cursor<'_>, field: &Field, depth: usize) -> Read<Value> {
        if field.array {
            let count = cursor.length()?;
            let mut elements = Vec::with_capacity(count);
            for _ in 0..count {
                elements.push(self.read_element(cursor, field, depth)?);
            }
            Ok(Value::Array(elements))
        } else {
            self.read_element(cursor, field, depth)
        }
    }

    fn read_element(&self, cursor: &mut Cursor<'_>, field: &Field, depth: usize) -> Read<Value> {
        if field.constant_pool {
            Ok(Value::PoolRef { type_id: field.type_id, key: cursor.long()? })
        } else {
            self.read_nested(cursor, field.type_id, depth)
        }
    }

    /// Steps over one value of class `type_id`.
    pub fn skip(&self, cursor: &mut Cursor<'_>, type_id: u64) -> Read<()> {
        self.skip_nested(cursor, type_id, 0)
    }

    fn skip_nested(&self, cursor: &mut Cursor<'_>, type_id: u64, depth: usize) -> Read<()> {
        let class = self
            .metadata
            .class(type_id)
            .ok_or_else(|| cursor.malformed(format!("a value of unknown class {type_id}")))?;
        match class.kind {
            Kind::Boolean | Kind::Byte => cursor.skip(1),
            Kind::Char | Kind::Short => cursor.short().map(|_| ()),
            Kind::Int => cursor.int().map(|_| ()),
            Kind::Long => cursor.long().map(|_| ()),
            Kind::Float => cursor.skip(4),
            Kind::Double => cursor.skip(8),
            Kind::String => cursor.skip_string(),
            Kind::Struct => {
                if depth > MAX_DEPTH {
                    return Err(cursor.malformed(format!("{} nested deeper than any JDK type", class.name)));
                }
                for field in &class.fields {
                    let count = if field.array { cursor.length()? } else { 1 };
                    for _ in 0..count {
                        if field.constant_pool {
                            cursor.long()?;
                        } else {
                            self.skip_nested(cursor, field.type_id, depth + 1)?;
                        }
                    }
                }
                Ok(())
            }
        }
    }
}
