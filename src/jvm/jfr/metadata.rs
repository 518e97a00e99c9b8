//! A chunk's metadata event: its string table and element tree, read into the classes the chunk's events and
//! constant pools are made of — each class's id, name, super type and fields (name, type, array or not, constant
//! pool reference or inline), in the order the values are written. Nothing is assumed about a class's layout: the
//! JDKs differ, and every value is read by these descriptors.

use std::collections::HashMap;

use super::bytes::{Cursor, Malformed, RawString, Read};

/// The super type of every event class.
const EVENT_SUPER_TYPE: &str = "jdk.jfr.Event";
/// Nesting the metadata tree never needs (the JDK writes four levels); a deeper one is damage.
const MAX_ELEMENT_DEPTH: usize = 32;

/// How values of a class are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Boolean,
    Byte,
    Char,
    Short,
    Int,
    Long,
    Float,
    Double,
    String,
    /// The class's fields, one after the other.
    Struct,
}

impl Kind {
    fn of(class_name: &str) -> Kind {
        match class_name {
            "boolean" => Kind::Boolean,
            "byte" => Kind::Byte,
            "char" => Kind::Char,
            "short" => Kind::Short,
            "int" => Kind::Int,
            "long" => Kind::Long,
            "float" => Kind::Float,
            "double" => Kind::Double,
            "java.lang.String" => Kind::String,
            _ => Kind::Struct,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Field {
    pub name: String,
    pub type_id: u64,
    /// An array of the type (`dimension="1"`): a count, then the elements.
    pub array: bool,
    /// Written as a key into the type's constant pool rather than inline (the attribute `constantPool` is there).
    pub constant_pool: bool,
}

#[derive(Debug, Clone)]
pub struct Class {
    pub id: u64,
    pub name: String,
    pub super_type: Option<String>,
    pub kind: Kind,
    pub fields: Vec<Field>,
}

impl Class {
    pub fn is_event(&self) -> bool {
        self.super_type.as_deref() == Some(EVENT_SUPER_TYPE)
    }

    /// The position of the field `name` among the values of this class.
    pub fn field_index(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|field| field.name == name)
    }
}

/// The classes of one chunk, by id.
#[derive(Debug, Default)]
pub struct Metadata {
    pub classes: HashMap<u64, Class>,
}

impl Metadata {
    pub fn class(&self, id: u64) -> Option<&Class> {
        self.classes.get(&id)
    }

    pub fn class_named(&self, name: &str) -> Option<&Class> {
        self.classes.values().find(|class| class.name == name)
    }

    pub fn event_classes(&self) -> impl Iterator<Item = &Class> {
        self.classes.values().filter(|class| class.is_event())
    }

    /// Reads the metadata event at `cursor` (its size, type id 0, start, duration, metadata id, string table and
    /// element tree).
    pub fn read(mut cursor: Cursor<'_>) -> Read<Metadata> {
        let start = cursor.position;
        cursor.int()?; // the event's size
        let type_id = cursor.long()?;
        if type_id != 0 {
            return Err(Malformed { offset: start, what: format!("the metadata event has type id {type_id}, not 0") });
        }
        cursor.long()?; // start time
        cursor.long()?; // duration
        cursor.long()?; // metadata id
        let string_count = cursor.length()?;
        let mut strings = Vec::with_capacity(string_count);
        for _ in 0..string_count {
            strings.push(match cursor.string()? {
                RawString::Text(text) => text,
                RawString::Null => String::new(),
                RawString::PoolRef(_) => return Err(cursor.malformed("a pool reference in the metadata strings")),
            });
        }
        let root = Element::read(&mut cursor, &strings, 0)?;
        let mut metadata = Metadata::default();
        for declaration in root.children_named("metadata").flat_map(|element| element.children_named("class")) {
            let class = declaration.class().map_err(|what| Malformed { offset: start, what })?;
            metadata.classes.insert(class.id, class);
        }
        Ok(metadata)
    }
}

/// One node of the metadata tree, its strings borrowed from the string table.
struct Element<'s> {
    name: &'s str,
    attributes: Vec<(&'s str, &'s str)>,
    children: Vec<Element<'s>>,
}

impl<'s> Element<'s> {
    fn read(cursor: &mut Cursor<'_>, strings: &'s [String], depth: usize) -> Read<Element<'s>> {
        if depth > MAX_ELEMENT_DEPTH {
            return Err(cursor.malformed("metadata nested deeper than the format writes"));
        }
        let name = string_at(cursor, strings)?;
        let attribute_count = cursor.length()?;
        let mut attributes = Vec::with_capacity(attribute_count);
        for _ in 0..attribute_count {
            attributes.push((string_at(cursor, strings)?, string_at(cursor, strings)?));
        }
        let child_count = cursor.length()?;
        let mut children = Vec::with_capacity(child_count);
        for _ in 0..child_count {
            children.push(Element::read(cursor, strings, depth + 1)?);
        }
        Ok(Element { name, attributes, children })
    }

    fn children_named<'e>(&'e self, name: &'e str) -> impl Iterator<Item = &'e Element<'s>> + 'e {
        self.children.iter().filter(move |child| child.name == name)
    }

    fn attribute(&self, key: &str) -> Option<&'s str> {
        self.attributes.iter().find(|(name, _)| *name == key).map(|(_, value)| *value)
    }

    fn id_attribute(&self, key: &str) -> Result<u64, String> {
        let text = self.attribute(key).ok_or_else(|| format!("a metadata {} without its {key}", self.name))?;
        text.parse().map_err(|_| format!("a metadata {} whose {key} is {text:?}", self.name))
    }

    /// A `class` element as a class: its attributes and its `field` children (annotations and settings are not
    /// needed to read values).
    fn class(&self) -> Result<Class, String> {
        let name = self.attribute("name").ok_or("a metadata class without a name")?.to_owned();
        let fields = self
            .children_named("field")
            .map(|field| {
                Ok(Field {
                    name: field.attribute("name").ok_or("a metadata field without a name")?.to_owned(),
                    type_id: field.id_attribute("class")?,
                    array: field.attribute("dimension").is_some_and(|dimension| dimension != "0"),
                    constant_pool: field.attribute("constantPool").is_some(),
                })
            })
            .collect::<Result<Vec<Field>, String>>()?;
        Ok(Class {
            id: self.id_attribute("id")?,
            kind: Kind::of(&name),
            name,
            super_type: self.attribute("superType").map(str::to_owned),
            fields,
        })
    }
}

/// A string of the table by its index, read as an int.
fn string_at<'s>(cursor: &mut Cursor<'_>, strings: &'s [String]) -> Read<&'s str> {
    let at = cursor.position;
    let index = cursor.int()?;
    usize::try_from(index)
        .ok()
        .and_then(|index| strings.get(index))
        .map(String::as_str)
        .ok_or_else(|| Malformed { offset: at, what: format!("metadata string {index} of {}", strings.len()) })
}
