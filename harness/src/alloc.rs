//! The harness's allocator: the system's, which, when an allocation fails,
//! first writes [`protocol::OUT_OF_MEMORY_MARKER`] and the size asked for on
//! the answers' channel (a file the implementation cannot reach: a private
//! descriptor on unix, a private handle on Windows), then returns null as
//! the system's does (std then prints its message and aborts). The judge
//! tells an out-of-memory death only with that line.

use std::alloc::{GlobalAlloc, Layout, System};
use std::fs::File;
use std::io::Write;
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicIsize, Ordering};

/// No channel: the judge's own process, a test, or after [`unwatch`].
const NONE: isize = -1;

/// The answers' channel once [`watch`] set it: its raw file descriptor
/// (unix) or handle (Windows); [`NONE`] before.
static CHANNEL: AtomicIsize = AtomicIsize::new(NONE);

/// Makes a failed allocation write its marker on `channel` from now on.
/// The file must stay open for the rest of the process, or until
/// [`unwatch`].
pub fn watch(channel: &File) {
    CHANNEL.store(raw_of(channel), Ordering::Relaxed);
}

/// No marker is written any more (the channel is about to close).
pub fn unwatch() {
    CHANNEL.store(NONE, Ordering::Relaxed);
}

#[cfg(unix)]
fn raw_of(channel: &File) -> isize {
    std::os::fd::AsRawFd::as_raw_fd(channel) as isize
}

#[cfg(windows)]
fn raw_of(channel: &File) -> isize {
    std::os::windows::io::AsRawHandle::as_raw_handle(channel) as isize
}

/// The channel `raw` (from [`raw_of`]) as a file, which must never be
/// dropped: it stays the owner's.
///
/// # Safety
/// `raw` is the channel [`watch`] was given, still open.
#[cfg(unix)]
unsafe fn borrowed(raw: isize) -> ManuallyDrop<File> {
    // SAFETY: the caller's contract; ManuallyDrop never closes it.
    ManuallyDrop::new(unsafe { std::os::fd::FromRawFd::from_raw_fd(raw as std::os::fd::RawFd) })
}

/// See the unix one.
///
/// # Safety
/// As the unix one.
#[cfg(windows)]
unsafe fn borrowed(raw: isize) -> ManuallyDrop<File> {
    // SAFETY: the caller's contract; ManuallyDrop never closes it.
    ManuallyDrop::new(unsafe {
        std::os::windows::io::FromRawHandle::from_raw_handle(raw as std::os::windows::io::RawHandle)
    })
}

/// [`System`], telling failures on the answers' channel.
pub struct Watched;

// SAFETY: every method forwards to `System` with the same arguments and
// returns its result unchanged; telling a failure only writes to the
// answers' channel from a stack buffer, and allocates nothing.
unsafe impl GlobalAlloc for Watched {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System::alloc`'s.
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            tell(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            tell(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is `System::dealloc`'s.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract is `System::realloc`'s.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            tell(new_size);
        }
        p
    }
}

/// Writes `\n@@kit-sin-memoria@@ SIZE\n` on the channel, if there is one,
/// without allocating (a write from a stack buffer; std's errors here are
/// OS codes or static messages).
fn tell(size: usize) {
    let raw = CHANNEL.load(Ordering::Relaxed);
    if raw == NONE {
        return;
    }
    let mut line = [0u8; 64];
    let len = marker_line(size, &mut line);
    // SAFETY: `watch`'s caller keeps the channel open until `unwatch`.
    let channel = unsafe { borrowed(raw) };
    let _ = (&*channel).write_all(&line[..len]);
}

/// The marker line for `size` in `out`; its length.
fn marker_line(size: usize, out: &mut [u8; 64]) -> usize {
    let marker = protocol::OUT_OF_MEMORY_MARKER.as_bytes();
    out[0] = b'\n';
    out[1..=marker.len()].copy_from_slice(marker);
    let mut at = marker.len() + 1;
    let mut digits = [0u8; 20];
    let mut n = size;
    let mut count = 0;
    loop {
        digits[count] = b'0' + (n % 10) as u8;
        count += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for d in digits[..count].iter().rev() {
        out[at] = *d;
        at += 1;
    }
    out[at] = b'\n';
    at + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_marker_line_parses_back_to_the_size() {
        for size in [0usize, 7, 4096, usize::MAX] {
            let mut out = [0u8; 64];
            let len = marker_line(size, &mut out);
            let text = std::str::from_utf8(&out[..len]).unwrap();
            assert!(text.starts_with('\n') && text.ends_with('\n'), "{text:?}");
            assert_eq!(
                protocol::parse_out_of_memory_line(text.trim_matches('\n')),
                Some(size as u64)
            );
        }
    }
}
