//! Progress of a run: the library counts files as it analyses them ([`Counter`]); the command
//! line draws a bar from the counter on a terminal ([`Bar`]). Nothing here prints unless asked.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Files analysed out of the total, updated by the pipeline from any thread.
#[derive(Debug, Default)]
pub struct Counter {
    total: AtomicUsize,
    done: AtomicUsize,
    /// Every file is read; the project-wide analysis runs.
    analysing: AtomicBool,
}

impl Counter {
    pub fn start(&self, total: usize) {
        self.total.store(total, Ordering::Relaxed);
        self.done.store(0, Ordering::Relaxed);
    }

    pub fn file_done(&self) {
        self.done.fetch_add(1, Ordering::Relaxed);
    }

    pub fn files_read(&self) {
        self.analysing.store(true, Ordering::Relaxed);
    }

    /// (files done, total, whether the project-wide phase has started)
    pub fn get(&self) -> (usize, usize, bool) {
        (
            self.done.load(Ordering::Relaxed),
            self.total.load(Ordering::Relaxed),
            self.analysing.load(Ordering::Relaxed),
        )
    }
}

/// Should a bar be drawn? Only on a terminal, never in CI logs or when asked to be quiet.
pub fn wanted(quiet: bool) -> bool {
    use std::io::IsTerminal;
    !quiet && std::io::stderr().is_terminal() && std::env::var_os("CI").is_none()
}

/// A bar on standard error, redrawn from a [`Counter`] by a thread; shown only once a scan has
/// taken longer than a moment, and erased when dropped.
pub struct Bar {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

const DELAY: Duration = Duration::from_millis(300);
const TICK: Duration = Duration::from_millis(80);
const WIDTH: usize = 30;

/// One frame: `[=====>        ]  1234/4894 files`, then the project-wide phase with the seconds
/// it has taken so far.
pub fn frame(done: usize, total: usize, analysing: Option<u64>) -> String {
    if let Some(secs) = analysing {
        return format!("retrylint: analysing {total} files… {secs}s");
    }
    if total == 0 {
        return "retrylint: looking for files…".into();
    }
    let filled = (done * WIDTH).checked_div(total).unwrap_or(0).min(WIDTH);
    let head = if filled < WIDTH { ">" } else { "" };
    format!(
        "retrylint: [{}{head}{}] {done}/{total} files",
        "=".repeat(filled),
        " ".repeat(WIDTH - filled - head.len())
    )
}

impl Bar {
    pub fn start(counter: Arc<Counter>) -> Bar {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let t0 = Instant::now();
            let mut shown = false;
            let mut analysing_since = None;
            while !flag.load(Ordering::Relaxed) {
                std::thread::sleep(TICK);
                if t0.elapsed() < DELAY || flag.load(Ordering::Relaxed) {
                    continue;
                }
                let (done, total, analysing) = counter.get();
                if analysing && analysing_since.is_none() {
                    analysing_since = Some(Instant::now());
                }
                let secs = analysing_since.map(|t| t.elapsed().as_secs());
                let mut err = std::io::stderr().lock();
                let _ = write!(err, "\r\x1b[2K{}", frame(done, total, secs));
                let _ = err.flush();
                shown = true;
            }
            if shown {
                let mut err = std::io::stderr().lock();
                let _ = write!(err, "\r\x1b[2K");
                let _ = err.flush();
            }
        });
        Bar {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames() {
        assert_eq!(
            frame(0, 4, None),
            format!("retrylint: [>{}] 0/4 files", " ".repeat(29))
        );
        assert_eq!(
            frame(4, 4, None),
            format!("retrylint: [{}] 4/4 files", "=".repeat(30))
        );
        assert_eq!(frame(0, 3, Some(2)), "retrylint: analysing 3 files… 2s");
        assert_eq!(frame(0, 0, None), "retrylint: looking for files…");
    }
}
