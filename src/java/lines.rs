//! A file's line table: where each line starts, held in about a byte and a third per line
//! instead of four. Every parsed file keeps its table to the end of the run (findings are
//! shown by line), so on a large project the plain `Vec<u32>` was a few percent of the peak.

use serde::{Deserialize, Serialize};

/// Lines between two absolute starts; the starts in between are read by walking the steps.
const STRIDE: usize = 32;

/// The byte offsets at which the lines of a file start (the first is 0), strictly increasing:
/// every [`STRIDE`]th start is held as is, with where the steps after it begin; the others as
/// the step from the start before, in LEB128.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineStarts {
    /// How many lines.
    len: u32,
    /// (start of line `k * STRIDE`, position in `steps` of the step to the line after it).
    marks: Box<[(u32, u32)]>,
    steps: Box<[u8]>,
}

impl LineStarts {
    /// The one-based line of a byte offset: how many lines start at or before it (at least 1).
    pub fn line_of(&self, offset: u32) -> u32 {
        let k = self.marks.partition_point(|m| m.0 <= offset);
        if k == 0 {
            return 1;
        }
        let (mut start, mut pos) = self.marks[k - 1];
        let first = (k - 1) * STRIDE;
        let end = (first + STRIDE).min(self.len as usize);
        let mut line = first + 1;
        while line < end {
            start += step(&self.steps, &mut pos);
            if start > offset {
                break;
            }
            line += 1;
        }
        line as u32
    }

    /// Every start, in order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        let len = self.len as usize;
        self.marks
            .iter()
            .enumerate()
            .flat_map(move |(k, &(first, at))| {
                let mut pos = at;
                let mut start = first;
                let n = (len - k * STRIDE).min(STRIDE);
                (0..n).map(move |i| {
                    if i > 0 {
                        start += step(&self.steps, &mut pos);
                    }
                    start
                })
            })
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The LEB128 step at `pos`, moving `pos` past it.
fn step(steps: &[u8], pos: &mut u32) -> u32 {
    let mut v = 0u32;
    let mut shift = 0;
    loop {
        let b = steps[*pos as usize];
        *pos += 1;
        v |= u32::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return v;
        }
        shift += 7;
    }
}

impl FromIterator<u32> for LineStarts {
    /// From strictly increasing starts.
    fn from_iter<I: IntoIterator<Item = u32>>(starts: I) -> LineStarts {
        let (mut marks, mut steps) = (Vec::new(), Vec::new());
        let (mut len, mut prev) = (0usize, 0u32);
        for s in starts {
            if len % STRIDE == 0 {
                marks.push((s, steps.len() as u32));
            } else {
                let mut d = s - prev;
                while d >= 0x80 {
                    steps.push((d as u8) | 0x80);
                    d >>= 7;
                }
                steps.push(d as u8);
            }
            prev = s;
            len += 1;
        }
        LineStarts {
            len: len as u32,
            marks: marks.into(),
            steps: steps.into(),
        }
    }
}

/// Encoded as the plain list of starts.
impl Serialize for LineStarts {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        // With its length first, as a format such as postcard needs it.
        let mut seq = s.serialize_seq(Some(self.len()))?;
        for start in self.iter() {
            seq.serialize_element(&start)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for LineStarts {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<LineStarts, D::Error> {
        let starts = Vec::<u32>::deserialize(d)?;
        if starts.windows(2).any(|w| w[0] >= w[1]) {
            return Err(serde::de::Error::custom("line starts out of order"));
        }
        Ok(starts.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(starts: &[u32], offset: u32) -> u32 {
        starts.partition_point(|s| *s <= offset).max(1) as u32
    }

    #[test]
    fn lines_as_a_plain_table_tells_them() {
        for n in [0usize, 1, 2, 31, 32, 33, 64, 65, 100] {
            let starts: Vec<u32> = (0..n as u32)
                .map(|i| i * 7 + i * i * 3 + if i > 0 { 1 } else { 0 })
                .collect();
            let t: LineStarts = starts.iter().copied().collect();
            assert_eq!(t.len(), n);
            assert_eq!(t.iter().collect::<Vec<_>>(), starts);
            let top = starts.last().copied().unwrap_or(0) + 300;
            for off in 0..top {
                assert_eq!(t.line_of(off), plain(&starts, off), "n {n} offset {off}");
            }
            let back: LineStarts = postcard::from_bytes(&postcard::to_stdvec(&t).unwrap()).unwrap();
            assert_eq!(back, t);
            assert_eq!(
                postcard::to_stdvec(&t).unwrap(),
                postcard::to_stdvec(&starts).unwrap()
            );
        }
    }
}
