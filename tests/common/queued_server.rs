//! A server of known capacity for the load tests: each connection's reader thread queues its requests for one worker
//! thread, which completes them one at a time, each taking `service(time since the first request)` — a fixed service
//! time, or one that changes as a warming JVM's does.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc;
use std::sync::{Arc, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

/// The server's URL. The worker sleeps (it does not busy-wait, so the test leaves the 2-core machine's CPU to the
/// generator) until each request's completion time, and completion times sit on a fixed grid — start at the later of
/// arrival and the previous completion, end `service` later — so a late wake-up shortens the next request's wait
/// instead of lowering the capacity: over any busy period it serves exactly 1/service requests per second.
pub fn queued_server(service: fn(Duration) -> Duration) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://127.0.0.1:{}/", listener.local_addr().unwrap().port());
    let (queue, jobs) = mpsc::channel::<(Instant, Arc<TcpStream>)>();
    let first = Arc::new(OnceLock::<Instant>::new());
    thread::spawn(move || {
        let mut free_at = Instant::now();
        for (arrived, stream) in jobs {
            let since_first = first.get_or_init(Instant::now).elapsed();
            let done = arrived.max(free_at) + service(since_first);
            if let Some(wait) = done.checked_duration_since(Instant::now()) {
                thread::sleep(wait);
            }
            free_at = done;
            let _ = (&*stream).write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
        }
    });
    thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let queue = queue.clone();
            thread::spawn(move || queue_requests(stream, &queue));
        }
    });
    url
}

/// Read GET requests (heads without bodies) off one connection and queue each for the worker, in order.
fn queue_requests(stream: TcpStream, queue: &mpsc::Sender<(Instant, Arc<TcpStream>)>) {
    let _ = stream.set_nodelay(true);
    let stream = Arc::new(stream);
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let count = match (&*stream).read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(count) => count,
        };
        buffer.extend_from_slice(&chunk[..count]);
        while let Some(end) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
            buffer.drain(..end + 4);
            if queue.send((Instant::now(), stream.clone())).is_err() {
                return;
            }
        }
    }
}
