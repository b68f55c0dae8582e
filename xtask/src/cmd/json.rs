//! What the commands' JSON shares beyond serde's derives.

/// A JSON object read and written as its pairs in order (serde_json's own map sorts them):
/// `#[serde(with = "super::json::in_order")]` on a `Vec<(K, V)>`.
pub mod in_order {
    use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
    use serde::ser::{Serialize, Serializer};
    use std::marker::PhantomData;

    pub fn serialize<K, V, S>(pairs: &[(K, V)], s: S) -> Result<S::Ok, S::Error>
    where
        K: Serialize,
        V: Serialize,
        S: Serializer,
    {
        s.collect_map(pairs.iter().map(|(k, v)| (k, v)))
    }

    pub fn deserialize<'de, K, V, D>(d: D) -> Result<Vec<(K, V)>, D::Error>
    where
        K: Deserialize<'de>,
        V: Deserialize<'de>,
        D: Deserializer<'de>,
    {
        d.deserialize_map(Pairs(PhantomData))
    }

    struct Pairs<K, V>(PhantomData<(K, V)>);

    impl<'de, K: Deserialize<'de>, V: Deserialize<'de>> Visitor<'de> for Pairs<K, V> {
        type Value = Vec<(K, V)>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut pairs = Vec::new();
            while let Some(pair) = map.next_entry()? {
                pairs.push(pair);
            }
            Ok(pairs)
        }
    }
}
