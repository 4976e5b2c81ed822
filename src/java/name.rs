//! Interned names for the declarations of lowered files.
//!
//! Every parsed file keeps its declarations to the end of the run, and they are mostly short
//! names that repeat across the project (types, annotations, parameter and method names): about
//! 1.3 million strings on a 12,000-file project, each a heap allocation of its own as a
//! `String`. A [`Name`] is one pointer to a single shared copy of its text, made once per
//! distinct text for the whole process and never freed (the distinct names of a project are a
//! few megabytes at most).

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, Hasher};
use std::ptr::NonNull;
use std::sync::{Mutex, OnceLock};

/// An interned string: one pointer to its text, which lives until the process ends. Equal
/// texts have the same pointer, so comparing two names compares pointers.
#[derive(Clone, Copy)]
pub struct Name(NonNull<u8>);

// The text a name points to is immutable and never freed.
unsafe impl Send for Name {}
unsafe impl Sync for Name {}

const SHARDS: usize = 16;

/// The names of one shard, found by a hash computed once per lookup (it also picks the shard).
type Shard = Mutex<hashbrown::HashTable<Name>>;

/// The hasher is seeded at random for each process: a file cannot be written in advance with
/// names that collide.
fn shards() -> &'static (foldhash::fast::RandomState, [Shard; SHARDS]) {
    static TABLE: OnceLock<(foldhash::fast::RandomState, [Shard; SHARDS])> = OnceLock::new();
    TABLE.get_or_init(Default::default)
}

impl Name {
    /// The name for `text`, made the first time the text is seen.
    pub fn new(text: &str) -> Name {
        let (state, shards) = shards();
        let hash = state.hash_one(text);
        // Bits the table uses neither for a bucket nor for its tags.
        let shard = &shards[(hash >> 32) as usize % SHARDS];
        let mut table = shard.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = table.find(hash, |n| n.as_str() == text) {
            return *n;
        }
        // The length (4 bytes, native order), then the text.
        let len = u32::try_from(text.len()).expect("a name shorter than 4 GiB");
        let mut bytes = Vec::with_capacity(4 + text.len());
        bytes.extend_from_slice(&len.to_ne_bytes());
        bytes.extend_from_slice(text.as_bytes());
        let leaked: &'static mut [u8] = Box::leak(bytes.into_boxed_slice());
        let name = Name(NonNull::from(&mut leaked[0]));
        table.insert_unique(hash, name, |n| state.hash_one(n.as_str()));
        name
    }

    /// The text.
    pub fn as_str(&self) -> &'static str {
        // SAFETY: `self.0` points to a leaked, never-changed allocation made by `new`: a
        // length, then that many bytes of a `str`.
        unsafe {
            let p = self.0.as_ptr();
            let len = u32::from_ne_bytes(p.cast::<[u8; 4]>().read()) as usize;
            std::str::from_utf8_unchecked(std::slice::from_raw_parts(p.add(4), len))
        }
    }
}

impl Default for Name {
    fn default() -> Name {
        Name::new("")
    }
}

impl std::ops::Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for Name {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        self.0 == other.0
    }
}

impl Eq for Name {}

/// As the text's hash, so that maps keyed by names can be asked with a `&str`.
impl Hash for Name {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.as_str().hash(h)
    }
}

/// By text, as a `String` orders.
impl Ord for Name {
    fn cmp(&self, other: &Name) -> std::cmp::Ordering {
        if self.0 == other.0 {
            return std::cmp::Ordering::Equal;
        }
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Name) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<Name> for str {
    fn eq(&self, other: &Name) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, other: &Name) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, other: &Name) -> bool {
        self == other.as_str()
    }
}

impl std::fmt::Debug for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        std::fmt::Display::fmt(self.as_str(), f)
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Name {
        Name::new(s)
    }
}

impl From<&String> for Name {
    fn from(s: &String) -> Name {
        Name::new(s)
    }
}

impl From<String> for Name {
    fn from(s: String) -> Name {
        Name::new(&s)
    }
}

impl From<Name> for String {
    fn from(n: Name) -> String {
        n.as_str().to_string()
    }
}

/// The names of one encoding, by number (see [`encode_numbered`]).
enum Table {
    Encode {
        numbers: HashMap<NonNull<u8>, u32>,
        names: Vec<Name>,
    },
    Decode(Vec<Name>),
}

thread_local! {
    /// The table of the encoding or decoding under way on this thread, if it numbers names.
    static TABLE: RefCell<Option<Table>> = const { RefCell::new(None) };
}

/// `value` encoded (postcard) with each name written as a number, after a table of the names
/// it holds, each once: decoding it makes each distinct name once, not once per use (a file's
/// facts name the same types and annotations over and over).
pub fn encode_numbered<T: serde::Serialize>(value: &T) -> Option<Vec<u8>> {
    let table = Table::Encode {
        numbers: HashMap::new(),
        names: Vec::new(),
    };
    let guard = Swap::new(Some(table));
    let body = postcard::to_stdvec(value);
    let Some(Table::Encode { names, .. }) = guard.finish() else {
        return None;
    };
    let texts: Vec<&str> = names.iter().map(Name::as_str).collect();
    postcard::to_stdvec(&(texts, body.ok()?)).ok()
}

/// Decode what [`encode_numbered`] wrote, `decode` reading the value's bytes; `None` when the
/// table or the value does not decode, or the value names a number the table does not have.
pub fn decode_numbered<T>(bytes: &[u8], decode: impl FnOnce(&[u8]) -> Option<T>) -> Option<T> {
    let (texts, body): (Vec<&str>, &[u8]) = postcard::from_bytes(bytes).ok()?;
    let names = texts.into_iter().map(Name::new).collect();
    let _guard = Swap::new(Some(Table::Decode(names)));
    decode(body)
}

/// What [`encode_numbered`] wrote, taken apart: the table's texts and the value's bytes.
pub fn split_numbered(bytes: &[u8]) -> Option<(Vec<&str>, &[u8])> {
    postcard::from_bytes(bytes).ok()
}

/// Decode the value bytes of what [`encode_numbered`] wrote with its table already made
/// (`names`, in the table's order): a table shared by many values is interned once.
pub fn decode_with_names<T>(
    names: Vec<Name>,
    body: &[u8],
    decode: impl FnOnce(&[u8]) -> Option<T>,
) -> Option<T> {
    let _guard = Swap::new(Some(Table::Decode(names)));
    decode(body)
}

/// Runs `f` with names written and read as text, whatever encoding is under way (a method
/// body, encoded on its own and decoded without the file's table).
pub fn as_text<T>(f: impl FnOnce() -> T) -> T {
    let _guard = Swap::new(None);
    f()
}

/// This thread's table replaced until dropped, then put back — also when what runs in between
/// panics, so that no later encoding on the thread writes numbers it was not asked for.
struct Swap(Option<Option<Table>>);

impl Swap {
    fn new(table: Option<Table>) -> Swap {
        Swap(Some(TABLE.replace(table)))
    }

    /// The table now in place, and the one before put back.
    fn finish(mut self) -> Option<Table> {
        TABLE.replace(self.0.take().flatten())
    }
}

impl Drop for Swap {
    fn drop(&mut self) {
        if let Some(before) = self.0.take() {
            TABLE.set(before);
        }
    }
}

/// Encoded as its text, as a `String` is — or as its number inside [`encode_numbered`].
impl serde::Serialize for Name {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let number = TABLE.with_borrow_mut(|t| match t {
            Some(Table::Encode { numbers, names }) => {
                Some(*numbers.entry(self.0).or_insert_with(|| {
                    names.push(*self);
                    names.len() as u32 - 1
                }))
            }
            _ => None,
        });
        match number {
            Some(n) => s.serialize_u32(n),
            None => s.serialize_str(self.as_str()),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Name {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Name, D::Error> {
        struct Text;
        impl serde::de::Visitor<'_> for Text {
            type Value = Name;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E>(self, v: &str) -> Result<Name, E> {
                Ok(Name::new(v))
            }
        }
        struct Number;
        impl serde::de::Visitor<'_> for Number {
            type Value = Name;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a name's number")
            }
            fn visit_u32<E: serde::de::Error>(self, v: u32) -> Result<Name, E> {
                TABLE
                    .with_borrow(|t| match t {
                        Some(Table::Decode(names)) => names.get(v as usize).copied(),
                        _ => None,
                    })
                    .ok_or_else(|| E::custom("a name's number outside the table"))
            }
        }
        if TABLE.with_borrow(|t| matches!(t, Some(Table::Decode(_)))) {
            d.deserialize_u32(Number)
        } else {
            d.deserialize_str(Text)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Name;

    #[test]
    fn equal_texts_are_one_name() {
        let a = Name::new("Transactional");
        let b = Name::from(String::from("Transactional"));
        assert_eq!(a, b);
        assert_eq!(a.as_str(), "Transactional");
        assert_eq!(a, "Transactional");
        assert_ne!(a, Name::new("Retryable"));
        assert!(Name::new("a") < Name::new("b"));
        assert_eq!(Name::default(), "");
        assert_eq!(format!("{a:?}"), "\"Transactional\"");
        let bytes = postcard::to_stdvec(&a).unwrap();
        assert_eq!(bytes, postcard::to_stdvec("Transactional").unwrap());
        assert_eq!(postcard::from_bytes::<Name>(&bytes).unwrap(), a);
    }

    #[test]
    fn numbered_names_decode_to_the_same_names() {
        let v = vec![
            Name::new("Retryable"),
            Name::new("Order"),
            Name::new("Retryable"),
        ];
        let bytes = super::encode_numbered(&v).unwrap();
        let back: Vec<Name> =
            super::decode_numbered(&bytes, |b| postcard::from_bytes(b).ok()).unwrap();
        assert_eq!(back, v);
        // Outside a numbered encoding, names are text again.
        assert_eq!(
            postcard::to_stdvec(&v[0]).unwrap(),
            postcard::to_stdvec("Retryable").unwrap()
        );
        // Text inside a numbered encoding (a method body's) stays text.
        let text = super::encode_numbered(&super::as_text(|| postcard::to_stdvec(&v).unwrap()));
        assert!(text.is_some());
        // A number beyond the table is an error, not a panic.
        let (_, body): (Vec<&str>, Vec<u8>) = postcard::from_bytes(&bytes).unwrap();
        let short = postcard::to_stdvec(&(vec!["Retryable"], body)).unwrap();
        assert!(
            super::decode_numbered(&short, |b| postcard::from_bytes::<Vec<Name>>(b).ok()).is_none()
        );
        // A panic while decoding or encoding leaves the thread reading and writing names as
        // text.
        let r = std::panic::catch_unwind(|| {
            super::decode_numbered(&bytes, |_| -> Option<()> { panic!("decoding failed") })
        });
        assert!(r.is_err());
        let text = postcard::to_stdvec("Order").unwrap();
        assert_eq!(postcard::from_bytes::<Name>(&text).unwrap(), v[1]);
        struct Fails;
        impl serde::Serialize for Fails {
            fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
                panic!("encoding failed")
            }
        }
        let r = std::panic::catch_unwind(|| super::encode_numbered(&(v[1], Fails)));
        assert!(r.is_err());
        assert_eq!(postcard::to_stdvec(&v[1]).unwrap(), text);
    }
}
