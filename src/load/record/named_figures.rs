//! Figures kept by key, in the order they were made, and written as fields of the record that holds them (a merged
//! result's per-host latencies: `p50_ms`, `p99_ms`, `max_ms`, whichever the figure registry's per-request view
//! lists). A leaf: which keys there are is the registry's business, not this type's.

use serde::{Deserialize, Serialize};

/// Figures by key, in the order they were made; in JSON the fields of a map (flattened into the record that holds
/// them), numbers only: a field of another kind is not one of them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NamedFigures(pub Vec<(String, f64)>);

impl NamedFigures {
    /// The figure of this key; None when it was not kept.
    pub fn get(&self, key: &str) -> Option<f64> {
        self.0.iter().find(|(name, _)| name == key).map(|(_, value)| *value)
    }
}

impl Serialize for NamedFigures {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, value) in &self.0 {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for NamedFigures {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Figures;
        impl<'de> serde::de::Visitor<'de> for Figures {
            type Value = NamedFigures;
            fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
                formatter.write_str("figures by key")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(self, mut map: M) -> Result<NamedFigures, M::Error> {
                #[derive(Deserialize)]
                #[serde(untagged)]
                enum Field {
                    Number(f64),
                    Other(serde::de::IgnoredAny),
                }
                let mut figures = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    if let Field::Number(value) = map.next_value::<Field>()? {
                        figures.push((key, value));
                    }
                }
                Ok(NamedFigures(figures))
            }
        }
        deserializer.deserialize_map(Figures)
    }
}
