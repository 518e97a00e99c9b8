//! A warmed-up session allocates nothing per request: requests started, their output taken and their responses
//! received (header fields the HPACK decoder already indexed) are counted by a global allocator that counts the
//! allocations of the thread that asks it to, and of no other.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use super::frame::flag;
use super::session_tests::{Server, connected};
use super::*;

/// The system allocator, counting this thread's allocations while `COUNTING` is set.
struct CountingAllocator;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn note_allocation() {
    let _ = COUNTING.try_with(|counting| {
        if counting.get() {
            ALLOCATIONS.with(|allocations| allocations.set(allocations.get() + 1));
        }
    });
}

// SAFETY: every call goes to the system allocator unchanged; counting touches only const-initialised thread locals.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_allocation();
        // SAFETY: the caller's layout, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_allocation();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_allocation();
        // SAFETY: a block the system allocator gave out, with its layout.
        unsafe { System.realloc(pointer, layout, new_size) }
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(pointer, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// The allocations `work` makes on this thread.
fn allocations_of(work: impl FnOnce()) -> u64 {
    ALLOCATIONS.with(|allocations| allocations.set(0));
    COUNTING.with(|counting| counting.set(true));
    work();
    COUNTING.with(|counting| counting.set(false));
    ALLOCATIONS.with(Cell::get)
}

#[test]
fn the_allocator_counts_this_threads_allocations() {
    assert_eq!(allocations_of(|| drop(std::hint::black_box(vec![1u8; 10]))), 1);
}

#[test]
fn a_warmed_up_session_allocates_nothing_per_request() {
    const STREAMS: u32 = 10;
    let mut session = connected(SessionConfig::new(STREAMS as usize, Scheme::Http));
    let mut server = Server::new();
    let request = b"POST /items HTTP/1.1\r\nHost: a:1\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n";
    let request = [&request[..], &[b'x'; 1000]].concat();
    let fields = [(":status", "200"), ("content-type", "text/plain"), ("server", "test")];
    let mut first_stream = 1;
    let mut batch = |session: &mut Session, server: &mut Server| -> u64 {
        let mut replies = Vec::new();
        for stream in (first_stream..).step_by(2).take(STREAMS as usize) {
            replies.extend(server.headers(stream, 0, &fields));
            replies.extend(Server::data(stream, flag::END_STREAM, &[b'y'; 2000]));
        }
        first_stream += 2 * STREAMS;
        let mut completed = 0;
        let allocations = allocations_of(|| {
            for lane in 0..STREAMS as usize {
                session.start_request(lane, &request).unwrap();
            }
            let written = session.output().len();
            session.consumed(written);
            session
                .receive(&replies, &mut |event| {
                    if let Event::Response { status: 200, body_bytes: 2000, .. } = event {
                        completed += 1;
                    }
                })
                .unwrap();
        });
        assert_eq!(completed, STREAMS);
        allocations
    };
    for _ in 0..20 {
        batch(&mut session, &mut server);
    }
    let allocations: u64 = (0..100).map(|_| batch(&mut session, &mut server)).sum();
    assert_eq!(allocations, 0, "allocations in 1,000 warmed-up requests");
}
