//! Where the host programs run: nowhere they can reach past this machine. Host programs phone
//! home (the Continue CLI resolves its service's name at start, others check for updates or send
//! telemetry), so every one the real-host tests start runs in a network namespace whose only
//! interface is loopback.
//!
//! The namespace is the test thread's own ([`enter`]): the thread leaves the machine's network
//! for a new one, brings its loopback up, and from then on every socket it opens (the fake MCP
//! and model servers on 127.0.0.1) and every process it starts (dotpack, the host, the servers
//! the host starts) is in it, so the host reaches the test's listeners and nothing else. That
//! needs root (`unshare(CLONE_NEWNET)`); elsewhere every proxy variable points at a closed
//! loopback port ([`guard`]), so a program that honours them gets nowhere, and loopback itself
//! stays direct (`NO_PROXY`).

use std::cell::Cell;
use std::process::Command;

/// How the calling thread is kept from the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// In a network namespace of its own whose only interface is loopback.
    Namespace,
    /// In the machine's network, with the proxy variables pointing at a closed port.
    Proxy,
}

thread_local! {
    static MODE: Cell<Option<Mode>> = const { Cell::new(None) };
}

/// Moves the calling thread into a loopback-only network namespace, once; later calls say how
/// it is kept. Call it before the thread opens a listener or starts a process.
pub fn enter() -> Mode {
    if let Some(mode) = MODE.get() {
        return mode;
    }
    let mode = if rustix::process::geteuid().is_root() && isolate_thread() {
        Mode::Namespace
    } else {
        Mode::Proxy
    };
    MODE.set(Some(mode));
    mode
}

/// `unshare(CLONE_NEWNET)` for this thread, then `ip link set lo up` (a child of this thread, so
/// in the new namespace). When loopback cannot be brought up the thread goes back to the
/// namespace it had, and `false` says so.
fn isolate_thread() -> bool {
    let Ok(before) = std::fs::File::open("/proc/thread-self/ns/net") else {
        return false;
    };
    // SAFETY: only the network namespace is unshared; the file descriptor table (the one flag
    // `unshare_unsafe` is unsafe for) stays shared.
    if unsafe { rustix::thread::unshare_unsafe(rustix::thread::UnshareFlags::NEWNET) }.is_err() {
        return false;
    }
    let up = Command::new("ip")
        .args(["link", "set", "lo", "up"])
        .status()
        .is_ok_and(|s| s.success());
    if !up {
        let back = rustix::thread::move_into_link_name_space(
            std::os::fd::AsFd::as_fd(&before),
            Some(rustix::thread::LinkNameSpaceType::Network),
        );
        assert!(
            back.is_ok(),
            "could not return to the machine's network namespace"
        );
    }
    up
}

/// `command` kept from the network: it runs in the thread's namespace (entered here if it was
/// not), and without one its proxy variables point at a closed loopback port.
pub fn guard(command: &mut Command) {
    if enter() == Mode::Namespace {
        return;
    }
    for var in [
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ] {
        command.env(var, "http://127.0.0.1:9");
    }
    for var in ["NO_PROXY", "no_proxy"] {
        command.env(var, "127.0.0.1,localhost");
    }
}

#[test]
fn a_thread_in_the_namespace_reaches_only_loopback() {
    if enter() != Mode::Namespace {
        return;
    }
    let links = Command::new("ip")
        .args(["-o", "link", "show"])
        .output()
        .expect("ip link show");
    let links = String::from_utf8_lossy(&links.stdout);
    let names: Vec<&str> = links
        .lines()
        .filter_map(|l| l.split(':').nth(1).map(str::trim))
        .collect();
    assert_eq!(names, ["lo"], "{links}");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let addr = listener.local_addr().expect("addr");
    assert!(std::net::TcpStream::connect(addr).is_ok(), "loopback is up");
    // A route anywhere else does not exist.
    let out = std::net::TcpStream::connect_timeout(
        &"192.0.2.1:80".parse().expect("address"),
        std::time::Duration::from_secs(2),
    );
    assert!(out.is_err(), "{out:?}");
}
