//! A timerfd registered with the worker's poll, so an event loop can sleep until a deadline with microsecond
//! precision (epoll's own timeout is whole milliseconds, too coarse for an open-model schedule).

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::{Duration, Instant};

use mio::unix::SourceFd;
use mio::{Interest, Registry, Token};

pub struct DeadlineTimer {
    fd: OwnedFd,
    armed_for: Option<Instant>,
}

impl DeadlineTimer {
    pub fn new(registry: &Registry, token: Token) -> io::Result<DeadlineTimer> {
        // SAFETY: plain syscall; the returned descriptor is checked and then owned.
        let raw = unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_NONBLOCK | libc::TFD_CLOEXEC) };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `raw` is a fresh, valid descriptor that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        registry.register(&mut SourceFd(&fd.as_raw_fd()), token, Interest::READABLE)?;
        Ok(DeadlineTimer { fd, armed_for: None })
    }

    /// Make sure the timer fires at `deadline` (re-arming only when it changes).
    pub fn arm(&mut self, deadline: Instant, now: Instant) -> io::Result<()> {
        if self.armed_for == Some(deadline) {
            return Ok(());
        }
        let wait = deadline.saturating_duration_since(now).max(Duration::from_nanos(1));
        let spec = libc::itimerspec {
            it_interval: libc::timespec { tv_sec: 0, tv_nsec: 0 },
            it_value: libc::timespec {
                tv_sec: wait.as_secs() as libc::time_t,
                tv_nsec: wait.subsec_nanos() as libc::c_long,
            },
        };
        // SAFETY: valid descriptor and a fully initialised itimerspec.
        if unsafe { libc::timerfd_settime(self.fd.as_raw_fd(), 0, &spec, std::ptr::null_mut()) } < 0 {
            return Err(io::Error::last_os_error());
        }
        self.armed_for = Some(deadline);
        Ok(())
    }

    /// Acknowledge an expiry (called on the timer's poll event).
    pub fn acknowledge(&mut self) {
        let mut expirations = [0u8; 8];
        // SAFETY: reading 8 bytes into an 8-byte buffer from a valid descriptor; EAGAIN is harmless.
        unsafe { libc::read(self.fd.as_raw_fd(), expirations.as_mut_ptr().cast(), expirations.len()) };
        self.armed_for = None;
    }
}
