//! The stored form of an encoded method body: LZ4-compressed where that is smaller.
//!
//! Every parsed file keeps its methods' bodies encoded to the end of the run (see
//! [`super::ir::Body`]), and the encoding writes each name, type and string literal out in
//! full wherever it occurs: the same identifiers recur throughout a body, which LZ4 takes back
//! at a cost of well under a microsecond per body to unpack.

use std::borrow::Cow;

/// Stored as written, after this byte.
const RAW: u8 = 0;
/// The length of the encoding (4 bytes, little-endian), then its LZ4 block, after this byte.
const LZ4: u8 = 1;

/// Bodies shorter than this are stored as written: LZ4 finds little to take back in them.
const MIN_PACKED: usize = 64;

/// The stored form of an encoded body.
pub fn pack(raw: &[u8]) -> Box<[u8]> {
    if raw.len() >= MIN_PACKED
        && let Ok(len) = u32::try_from(raw.len())
    {
        let packed = lz4_flex::block::compress(raw);
        if packed.len() + 5 < raw.len() + 1 {
            let mut out = Vec::with_capacity(packed.len() + 5);
            out.push(LZ4);
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(&packed);
            return out.into_boxed_slice();
        }
    }
    let mut out = Vec::with_capacity(raw.len() + 1);
    out.push(RAW);
    out.extend_from_slice(raw);
    out.into_boxed_slice()
}

/// The encoding a stored body holds; `None` if it is not one [`pack`] made.
pub fn unpack(code: &[u8]) -> Option<Cow<'_, [u8]>> {
    match code.split_first()? {
        (&RAW, raw) => Some(Cow::Borrowed(raw)),
        (&LZ4, rest) if rest.len() >= 4 => {
            let (len, packed) = rest.split_at(4);
            let len = u32::from_le_bytes(len.try_into().ok()?) as usize;
            let raw = lz4_flex::block::decompress(packed, len).ok()?;
            (raw.len() == len).then_some(Cow::Owned(raw))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{pack, unpack};

    #[test]
    fn round_trips() {
        let long: Vec<u8> = b"paymentService.process(request.getIdempotencyKey()); "
            .repeat(20)
            .to_vec();
        for raw in [&b""[..], b"short", &long] {
            let code = pack(raw);
            assert_eq!(&*unpack(&code).unwrap(), raw);
        }
        assert!(pack(&long).len() < long.len() / 4);
        assert!(unpack(&[]).is_none());
        assert!(unpack(&[7, 1, 2]).is_none());
    }
}
