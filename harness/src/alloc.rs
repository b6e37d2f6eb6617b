//! The harness's allocator: the system's, which, when an allocation fails,
//! first writes [`protocol::OUT_OF_MEMORY_MARKER`] and the size asked for on
//! the answers' channel (a file descriptor the implementation cannot reach),
//! then returns null as the system's does (std then prints its message and
//! aborts). The judge tells an out-of-memory death only with that line.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicI32, Ordering};

/// The answers' channel's file descriptor, once [`watch`] set it; -1 before
/// (the judge's own process, a test).
static CHANNEL: AtomicI32 = AtomicI32::new(-1);

/// Makes a failed allocation write its marker on `fd` from now on. The
/// descriptor must stay open for the rest of the process.
pub fn watch(fd: i32) {
    CHANNEL.store(fd, Ordering::Relaxed);
}

/// [`System`], telling failures on the answers' channel.
pub struct Watched;

// SAFETY: every method forwards to `System` with the same arguments and
// returns its result unchanged; telling a failure only writes to a file
// descriptor from a stack buffer, and allocates nothing.
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
/// without allocating.
fn tell(size: usize) {
    let fd = CHANNEL.load(Ordering::Relaxed);
    if fd < 0 {
        return;
    }
    let mut line = [0u8; 64];
    let len = marker_line(size, &mut line);
    // SAFETY: `watch`'s caller keeps `fd` open for the process's life.
    let channel = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
    let mut rest = &line[..len];
    while !rest.is_empty() {
        match nix::unistd::write(channel, rest) {
            Ok(0) | Err(_) => return,
            Ok(n) => rest = &rest[n..],
        }
    }
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
