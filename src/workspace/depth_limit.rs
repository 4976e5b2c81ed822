//! A serde deserializer wrapper that caps nesting: every sequence, map, enum, option and newtype
//! entered counts one level, and past [`MAX_NESTING`] decoding fails with an error instead of
//! recursing until the stack overflows (a few megabytes of crafted bytes would otherwise abort
//! the process). Decoding of cache entries goes through it.

use serde::de::{self, DeserializeSeed, Deserializer, Visitor};
use std::cell::Cell;
use std::fmt;

/// Levels of nesting a cache entry may have. The lowering caps the syntax it keeps at a few
/// hundred levels; an entry deeper than this is refused (and recomputed).
pub const MAX_NESTING: usize = 1024;

/// Decode postcard `bytes` with nesting capped; `None` on any error, trailing bytes included.
pub fn from_postcard<T: de::DeserializeOwned>(bytes: &[u8]) -> Option<T> {
    from_postcard_capped(bytes, MAX_NESTING)
}

pub fn from_postcard_capped<T: de::DeserializeOwned>(bytes: &[u8], cap: usize) -> Option<T> {
    let mut de = postcard::Deserializer::from_bytes(bytes);
    let depth = Cell::new(0usize);
    let v = T::deserialize(Limited {
        inner: &mut de,
        depth: &depth,
        cap,
    })
    .ok()?;
    de.finalize().ok().filter(|rest| rest.is_empty())?;
    Some(v)
}

struct Limited<'c, D> {
    inner: D,
    depth: &'c Cell<usize>,
    cap: usize,
}

struct Wrap<'c, X> {
    inner: X,
    depth: &'c Cell<usize>,
    cap: usize,
}

impl<'c, X> Wrap<'c, X> {
    fn of<Y>(&self, inner: Y) -> Wrap<'c, Y> {
        Wrap {
            inner,
            depth: self.depth,
            cap: self.cap,
        }
    }
}

/// Run `f` one level deeper, or fail when that is past the cap.
fn nested<T, E: de::Error>(
    depth: &Cell<usize>,
    cap: usize,
    f: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    let d = depth.get() + 1;
    if d > cap {
        return Err(E::custom("nested too deeply"));
    }
    depth.set(d);
    let r = f();
    depth.set(d - 1);
    r
}

macro_rules! forward_deserialize {
    ($($method:ident $(($($arg:ident : $ty:ty),*))?;)*) => {
        $(
            fn $method<V: Visitor<'de>>(self $($(, $arg: $ty)*)?, visitor: V) -> Result<V::Value, D::Error> {
                let w = Wrap { inner: visitor, depth: self.depth, cap: self.cap };
                self.inner.$method($($($arg,)*)? w)
            }
        )*
    };
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Limited<'_, D> {
    type Error = D::Error;
    forward_deserialize! {
        deserialize_any; deserialize_bool; deserialize_i8; deserialize_i16; deserialize_i32;
        deserialize_i64; deserialize_i128; deserialize_u8; deserialize_u16; deserialize_u32;
        deserialize_u64; deserialize_u128; deserialize_f32; deserialize_f64; deserialize_char;
        deserialize_str; deserialize_string; deserialize_bytes; deserialize_byte_buf;
        deserialize_option; deserialize_unit; deserialize_seq; deserialize_map;
        deserialize_identifier; deserialize_ignored_any;
        deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str);
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
    }
    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

macro_rules! forward_visit {
    ($($method:ident($ty:ty);)*) => {
        $(
            fn $method<E: de::Error>(self, v: $ty) -> Result<V::Value, E> {
                self.inner.$method(v)
            }
        )*
    };
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Wrap<'_, V> {
    type Value = V::Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.inner.expecting(f)
    }
    forward_visit! {
        visit_bool(bool); visit_i8(i8); visit_i16(i16); visit_i32(i32); visit_i64(i64);
        visit_i128(i128); visit_u8(u8); visit_u16(u16); visit_u32(u32); visit_u64(u64);
        visit_u128(u128); visit_f32(f32); visit_f64(f64); visit_char(char); visit_str(&str);
        visit_borrowed_str(&'de str); visit_string(String); visit_bytes(&[u8]);
        visit_borrowed_bytes(&'de [u8]); visit_byte_buf(Vec<u8>);
    }
    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_none()
    }
    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_unit()
    }
    fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<V::Value, D2::Error> {
        let (depth, cap) = (self.depth, self.cap);
        nested(depth, cap, || {
            self.inner.visit_some(Limited {
                inner: d,
                depth,
                cap,
            })
        })
    }
    fn visit_newtype_struct<D2: Deserializer<'de>>(self, d: D2) -> Result<V::Value, D2::Error> {
        let (depth, cap) = (self.depth, self.cap);
        nested(depth, cap, || {
            self.inner.visit_newtype_struct(Limited {
                inner: d,
                depth,
                cap,
            })
        })
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        let access = self.of(seq);
        nested(self.depth, self.cap, || self.inner.visit_seq(access))
    }
    fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        let access = self.of(map);
        nested(self.depth, self.cap, || self.inner.visit_map(access))
    }
    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        let access = self.of(data);
        nested(self.depth, self.cap, || self.inner.visit_enum(access))
    }
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Wrap<'_, S> {
    type Value = S::Value;
    fn deserialize<D2: Deserializer<'de>>(self, d: D2) -> Result<S::Value, D2::Error> {
        self.inner.deserialize(Limited {
            inner: d,
            depth: self.depth,
            cap: self.cap,
        })
    }
}

impl<'de, A: de::SeqAccess<'de>> de::SeqAccess<'de> for Wrap<'_, A> {
    type Error = A::Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        let w = self.of(seed);
        self.inner.next_element_seed(w)
    }
    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

impl<'de, A: de::MapAccess<'de>> de::MapAccess<'de> for Wrap<'_, A> {
    type Error = A::Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let w = self.of(seed);
        self.inner.next_key_seed(w)
    }
    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        let w = self.of(seed);
        self.inner.next_value_seed(w)
    }
    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

impl<'c, 'de, A: de::EnumAccess<'de>> de::EnumAccess<'de> for Wrap<'c, A> {
    type Error = A::Error;
    type Variant = Wrap<'c, A::Variant>;
    fn variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<(T::Value, Self::Variant), A::Error> {
        let (depth, cap) = (self.depth, self.cap);
        let w = self.of(seed);
        let (v, variant) = self.inner.variant_seed(w)?;
        Ok((
            v,
            Wrap {
                inner: variant,
                depth,
                cap,
            },
        ))
    }
}

impl<'de, A: de::VariantAccess<'de>> de::VariantAccess<'de> for Wrap<'_, A> {
    type Error = A::Error;
    fn unit_variant(self) -> Result<(), A::Error> {
        self.inner.unit_variant()
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        let w = self.of(seed);
        nested(self.depth, self.cap, || self.inner.newtype_variant_seed(w))
    }
    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        let w = self.of(visitor);
        self.inner.tuple_variant(len, w)
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        let w = self.of(visitor);
        self.inner.struct_variant(fields, w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    enum Expr {
        Leaf(u32),
        Neg(Box<Expr>),
        Pair { a: Box<Expr>, b: Option<Box<Expr>> },
    }

    fn deep(n: usize) -> Expr {
        (0..n).fold(Expr::Leaf(7), |e, i| {
            if i % 2 == 0 {
                Expr::Neg(Box::new(e))
            } else {
                Expr::Pair {
                    a: Box::new(e),
                    b: Some(Box::new(Expr::Leaf(1))),
                }
            }
        })
    }

    #[test]
    fn round_trips_within_the_cap() {
        let e = deep(50);
        let b = postcard::to_stdvec(&e).unwrap();
        assert_eq!(from_postcard::<Expr>(&b), Some(e));
        let mut longer = b.clone();
        longer.push(0);
        assert_eq!(from_postcard::<Expr>(&longer), None, "trailing bytes");
    }

    #[test]
    fn refuses_what_nests_past_the_cap() {
        let b = postcard::to_stdvec(&deep(50)).unwrap();
        assert_eq!(from_postcard_capped::<Expr>(&b, 20), None);
        // A crafted input: a million `Neg` tags (variant 1) would overflow the stack of a plain
        // recursive decode.
        let mut crafted = vec![1u8; 3 << 20];
        crafted.push(0);
        crafted.push(7);
        let t = std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn(move || from_postcard::<Expr>(&crafted).is_none())
            .unwrap();
        assert!(t.join().unwrap());
    }
}
