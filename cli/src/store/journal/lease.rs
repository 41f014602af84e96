//! Leases: who holds each unfinished run (`HOST/PID/TAG`), for how long, and whether an
//! owner named in one is a process of this host that is gone.

use std::time::Duration;

/// How long a lease lasts unless renewed, by default.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(10);

/// Who takes leases, and for how long.
#[derive(Debug, Clone)]
pub struct Lease {
    /// The owner's name in the `leases` table: `HOST/PID/TAG` (a process of a host).
    pub owner: String,
    /// How long a lease lasts unless renewed (renewed every third of it).
    pub duration: Duration,
}

impl Lease {
    /// Leases of this process lasting `duration`.
    pub fn new(duration: Duration) -> Lease {
        Lease {
            owner: format!(
                "{}/{}/{}",
                host(),
                std::process::id(),
                ptc::session::process_tag()
            ),
            duration,
        }
    }

    /// Its duration in milliseconds.
    pub(super) fn ms(&self) -> i64 {
        i64::try_from(self.duration.as_millis()).unwrap_or(i64::MAX)
    }
}

impl Default for Lease {
    fn default() -> Self {
        Lease::new(DEFAULT_LEASE)
    }
}

/// This host's name.
fn host() -> String {
    rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned()
}

/// Whether `owner` (`HOST/PID/TAG`) is a process of this host that no longer exists.
pub(super) fn gone(owner: &str) -> bool {
    let mut parts = owner.splitn(3, '/');
    let (Some(host_name), Some(pid)) = (parts.next(), parts.next()) else {
        return false;
    };
    if host_name != host() {
        return false;
    }
    let Some(pid) = pid
        .parse::<i32>()
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    pid.as_raw_nonzero().get() as u32 != std::process::id()
        && rustix::process::test_kill_process(pid) == Err(rustix::io::Errno::SRCH)
}
