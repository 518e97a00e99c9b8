//! The open-files limit: raised to the hard limit at start, and a clear refusal when the connections cannot fit.

use crate::error::bad_input;

/// Descriptors jload needs besides one per connection (per worker: epoll and timer; plus stdio, files, slack).
fn descriptors_needed(connections: usize, threads: usize) -> u64 {
    connections as u64 + 2 * threads as u64 + 32
}

/// Raise the soft RLIMIT_NOFILE to the hard limit; refuse (bad input) if `connections` still do not fit.
pub fn ensure_open_files(connections: usize, threads: usize) -> anyhow::Result<()> {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes into the struct we pass.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return Ok(()); // cannot tell: let the connects report what happens
    }
    if limit.rlim_cur < limit.rlim_max {
        let raised = libc::rlimit { rlim_cur: limit.rlim_max, rlim_max: limit.rlim_max };
        // SAFETY: setrlimit reads the struct we pass.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            limit.rlim_cur = limit.rlim_max;
        }
    }
    let needed = descriptors_needed(connections, threads);
    if needed > limit.rlim_cur {
        return Err(bad_input(format!(
            "-c {connections} needs about {needed} open files but the limit is {} (hard limit {}); raise it with \
             `ulimit -Hn {needed}; ulimit -n {needed}` as root or in /etc/security/limits.conf, or use fewer connections",
            limit.rlim_cur, limit.rlim_max
        )));
    }
    Ok(())
}
