//! A private Secret Service for tests: a D-Bus session bus listening at
//! `$XDG_RUNTIME_DIR/bus` in a temporary folder, and an unlocked `gnome-keyring-daemon` on it
//! whose keyrings live under the test's temporary HOME. Both stop when the value drops.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The bus's own configuration: no service folders, so nothing is started on demand (a
/// gnome-keyring activated by the bus would come up locked and ask for a password).
const BUS_CONFIG: &str = r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=@SOCKET@</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"#;

pub struct Keyring {
    /// `XDG_RUNTIME_DIR`: holds the bus socket `bus` and gnome-keyring's control folder.
    pub runtime_dir: PathBuf,
    /// `DBUS_SESSION_BUS_ADDRESS` of the private bus.
    pub address: String,
    bus: Child,
    daemon: Child,
}

/// Says why a test that needs the Secret Service has nothing to run; where the peers are required
/// (`DOTPACK_REQUIRE_TEST_PEERS=1`, which `.ci/run` sets), a missing peer fails the test instead.
#[allow(clippy::print_stderr)]
fn skip(what: &str) {
    let message = format!(
        "skipped: {what}\n  install the Debian packages dbus and gnome-keyring (`.ci/run` does)"
    );
    assert!(
        std::env::var_os("DOTPACK_REQUIRE_TEST_PEERS").is_none_or(|v| v.is_empty() || v == "0"),
        "{message}\n  (DOTPACK_REQUIRE_TEST_PEERS is set: the peer must be there)"
    );
    eprintln!("{message}");
}

/// Whether `program` is an executable file in a folder of PATH.
fn found(program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| {
            std::fs::metadata(dir.join(program))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    })
}

impl Keyring {
    /// A bus and an unlocked keyring for HOME `home`; `None` (after saying so, or failing when
    /// the peers are required) where dbus-daemon or gnome-keyring-daemon is missing.
    pub fn start(home: &Path) -> Option<Keyring> {
        for program in ["dbus-daemon", "dbus-send", "gnome-keyring-daemon"] {
            if !found(program) {
                skip(&format!("{program} not found"));
                return None;
            }
        }
        let runtime_dir = home.join("run");
        std::fs::create_dir_all(&runtime_dir).unwrap();
        set_private(&runtime_dir);
        let socket = runtime_dir.join("bus");
        let config = home.join("bus.conf");
        std::fs::write(
            &config,
            BUS_CONFIG.replace("@SOCKET@", &socket.display().to_string()),
        )
        .unwrap();
        let mut bus = Command::new("dbus-daemon")
            .arg(format!("--config-file={}", config.display()))
            .args(["--nofork", "--nopidfile", "--print-address=1"])
            .stdout(Stdio::piped())
            // It says on stderr that it cannot raise its file limit, which is of no matter here.
            .stderr(Stdio::null())
            .spawn()
            .expect("start dbus-daemon");
        let mut line = String::new();
        BufReader::new(bus.stdout.take().unwrap())
            .read_line(&mut line)
            .expect("read the bus address");
        let address = line.trim().to_string();
        assert!(address.starts_with("unix:"), "bus address: {address:?}");
        let mut daemon = Command::new("gnome-keyring-daemon")
            .args(["--foreground", "--unlock", "--components=secrets"])
            .env_clear()
            .env("HOME", home)
            .env("XDG_RUNTIME_DIR", &runtime_dir)
            .env("XDG_DATA_HOME", home.join(".local/share"))
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("DBUS_SESSION_BUS_ADDRESS", &address)
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start gnome-keyring-daemon");
        // The login keyring's password: the keyring is created with it, and unlocked.
        let mut stdin = daemon.stdin.take().unwrap();
        stdin.write_all(b"test-password").unwrap();
        drop(stdin);
        let keyring = Keyring {
            runtime_dir,
            address,
            bus,
            daemon,
        };
        keyring.wait_for_secret_service();
        Some(keyring)
    }

    /// Waits until gnome-keyring owns `org.freedesktop.secrets` on the bus.
    fn wait_for_secret_service(&self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let out = Command::new("dbus-send")
                .env("DBUS_SESSION_BUS_ADDRESS", &self.address)
                .args([
                    "--session",
                    "--print-reply",
                    "--dest=org.freedesktop.DBus",
                    "/org/freedesktop/DBus",
                    "org.freedesktop.DBus.NameHasOwner",
                    "string:org.freedesktop.secrets",
                ])
                .output()
                .expect("run dbus-send");
            if String::from_utf8_lossy(&out.stdout).contains("boolean true") {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "gnome-keyring-daemon did not take org.freedesktop.secrets on the bus"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// `cmd` pointed at this keyring the way a desktop session is: the bus address set.
    pub fn apply(&self, cmd: &mut assert_cmd::Command) {
        cmd.env("DBUS_SESSION_BUS_ADDRESS", &self.address)
            .env("XDG_RUNTIME_DIR", &self.runtime_dir);
    }
}

impl Drop for Keyring {
    fn drop(&mut self) {
        let _ = self.daemon.kill();
        let _ = self.daemon.wait();
        let _ = self.bus.kill();
        let _ = self.bus.wait();
    }
}

fn set_private(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).unwrap();
}

/// Every regular file under `root` that contains `needle`, except `allowed`.
pub fn files_containing(root: &Path, needle: &str, allowed: &[PathBuf]) -> Vec<PathBuf> {
    let mut hits = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() && !allowed.contains(&path) {
                let bytes = std::fs::read(&path).unwrap_or_default();
                if bytes.windows(needle.len()).any(|w| w == needle.as_bytes()) {
                    hits.push(path);
                }
            }
        }
    }
    hits
}
