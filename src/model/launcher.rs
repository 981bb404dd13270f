//! The launcher's entry: the arguments of `dotpack run` that a host starts instead of a server,
//! and the pin that ties them to one command.
//!
//! A host asks its user once to approve a project's servers; an entry that says `dotpack run`
//! must then not start a different program because `dotpack.toml` changed. The pin is a sha256
//! over a canonical encoding of the command, its arguments and the names of the secrets the
//! launcher puts into its environment, computed when the entry is written and checked by
//! `dotpack run` at start. Pure: the planner builds entries with [`launcher_args`], the launcher
//! checks them with [`pin`].

use sha2::{Digest, Sha256};

/// What every pin starts with: the digest and the version of the encoding.
pub const PIN_PREFIX: &str = "sha256:";

/// The version tag hashed first, so that a later encoding cannot collide with this one.
const ENCODING: &[u8] = b"dotpack-run-pin-v1";

/// The pin of `command ARGS...` started with the secrets `secrets` (their order and repeats do
/// not matter: the launcher sets each once). `sha256:` and 64 lowercase hex digits.
///
/// Each part is hashed with its length before it (eight bytes, big-endian), so no two different
/// commands encode to the same bytes: `["a b"]` and `["a", "b"]` differ.
pub fn pin(command: &str, args: &[String], secrets: &[String]) -> String {
    encoded_pin(ENCODING, (b"command", command), (b"args", args), secrets)
}

/// `secrets`' names sorted and once each: the launcher sets each once, so their order and
/// repeats change neither the pin nor the entry.
fn secret_names(secrets: &[String]) -> Vec<&String> {
    let mut names: Vec<&String> = secrets.iter().collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// The pin of one entry, tagged `encoding`: a labelled head (the command, or the URL), a
/// labelled list (its arguments, or its header templates) and the secrets' names. Each part is
/// hashed with its length before it, and each list with its count.
fn encoded_pin(
    encoding: &[u8],
    (head_label, head): (&[u8], &str),
    (list_label, list): (&[u8], &[String]),
    secrets: &[String],
) -> String {
    let names = secret_names(secrets);
    let mut hash = Sha256::new();
    let mut part = |bytes: &[u8]| {
        hash.update((bytes.len() as u64).to_be_bytes());
        hash.update(bytes);
    };
    part(encoding);
    part(head_label);
    part(head.as_bytes());
    part(list_label);
    part(&(list.len() as u64).to_be_bytes());
    for item in list {
        part(item.as_bytes());
    }
    part(b"secrets");
    part(&(names.len() as u64).to_be_bytes());
    for name in names {
        part(name.as_bytes());
    }
    let digest = hash.finalize();
    let mut text = String::with_capacity(PIN_PREFIX.len() + 64);
    text.push_str(PIN_PREFIX);
    for byte in digest {
        text.push_str(&format!("{byte:02x}"));
    }
    text
}

/// The arguments after `dotpack` of the entry that runs `command ARGS...` through the launcher
/// with the secrets `secrets`: `run --pin DIGEST [--secret NAME]... -- COMMAND ARGS...`. The
/// entry's own command is `dotpack` (or its absolute path, in a user-scope file of a host whose
/// PATH would not find it). Secret names come out sorted and once each, as the pin counts them.
pub fn launcher_args(command: &str, args: &[String], secrets: &[String]) -> Vec<String> {
    let names = secret_names(secrets);
    let mut out = Vec::with_capacity(5 + 2 * names.len() + args.len());
    out.push("run".to_string());
    out.push("--pin".to_string());
    out.push(pin(command, args, secrets));
    for name in names {
        out.push("--secret".to_string());
        out.push(name.clone());
    }
    out.push("--".to_string());
    out.push(command.to_string());
    out.extend(args.iter().cloned());
    out
}

/// The version tag of a remote entry's pin, distinct from a command's.
const REMOTE_ENCODING: &[u8] = b"dotpack-run-remote-pin-v1";

/// The pin of the proxy to remote server `url` with the headers `headers` (`NAME: TEMPLATE`,
/// as the entry holds them, `{{env.SECRET}}` unexpanded) and the secrets `secrets`: the URL,
/// each header's name and template, and the secrets' names, encoded as [`pin`] encodes.
pub fn remote_pin(url: &str, headers: &[String], secrets: &[String]) -> String {
    encoded_pin(
        REMOTE_ENCODING,
        (b"url", url),
        (b"headers", headers),
        secrets,
    )
}

/// The arguments after `dotpack` of the entry that proxies stdio to remote server `url`:
/// `run --pin DIGEST [--secret NAME]... --url URL [--header 'NAME: TEMPLATE']...`, where a
/// template reads a secret as `{{env.NAME}}`.
pub fn remote_launcher_args(url: &str, headers: &[String], secrets: &[String]) -> Vec<String> {
    let names = secret_names(secrets);
    let mut out = vec![
        "run".to_string(),
        "--pin".to_string(),
        remote_pin(url, headers, secrets),
    ];
    for name in names {
        out.push("--secret".to_string());
        out.push(name.clone());
    }
    out.push("--url".to_string());
    out.push(url.to_string());
    for header in headers {
        out.push("--header".to_string());
        out.push(header.clone());
    }
    out
}

/// Whether `command ARGS...` is a launcher entry as dotpack writes it: `dotpack` (or a path to
/// it) running `run --pin …`.
pub fn is_entry(command: Option<&str>, args: Option<&[String]>) -> bool {
    let named_dotpack = command.is_some_and(|c| {
        let base = c.rsplit(['/', '\\']).next().unwrap_or(c);
        base.strip_suffix(".exe").unwrap_or(base) == "dotpack"
    });
    named_dotpack && args.is_some_and(|a| a.len() > 2 && a[0] == "run" && a[1] == "--pin")
}

/// The pin and the secrets of a launcher entry's arguments (`run --pin P --secret N … -- …`),
/// as far as they can be read; `None` for arguments that are not a launcher's.
pub fn entry_secrets(args: &[String]) -> Option<(Option<String>, Vec<String>)> {
    let mut rest = args.strip_prefix(&["run".to_string()])?.iter();
    let (mut pin, mut secrets) = (None, Vec::new());
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--" | "--url" => break,
            "--pin" => pin = rest.next().cloned(),
            "--secret" => secrets.extend(rest.next().cloned()),
            _ => {}
        }
    }
    Some((pin, secrets))
}

/// Whether `name` can name a secret: an environment variable's name as the templates read them
/// (`{{env.NAME}}`: an ASCII letter or `_`, then letters, digits and `_`), at most 128
/// characters. The launcher sets the secret under this name in the server's environment.
pub fn is_secret_name(name: &str) -> bool {
    crate::template::is_env_name(name) && name.len() <= 128
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remote_pin_covers_the_url_the_header_templates_and_the_secrets() {
        let headers = strings(&["Authorization: Bearer {{env.T}}"]);
        let base = remote_pin("http://a/mcp", &headers, &strings(&["T"]));
        assert_ne!(base, remote_pin("http://b/mcp", &headers, &strings(&["T"])));
        let other = strings(&["Authorization: Token {{env.T}}"]);
        assert_ne!(base, remote_pin("http://a/mcp", &other, &strings(&["T"])));
        assert_ne!(base, remote_pin("http://a/mcp", &headers, &strings(&["U"])));
        assert_ne!(base, pin("http://a/mcp", &headers, &strings(&["T"])));
        let args = remote_launcher_args("http://a/mcp", &headers, &strings(&["T"]));
        assert_eq!(entry_secrets(&args), Some((Some(base), strings(&["T"]))));
        assert_eq!(
            &args[5..],
            strings(&["--url", "http://a/mcp", "--header", &headers[0]])
        );
    }

    #[test]
    fn entry_secrets_reads_the_pin_and_the_names_before_the_double_dash() {
        let args = launcher_args("sh", &strings(&["--secret", "X"]), &strings(&["B", "A"]));
        let (pin, names) = entry_secrets(&args).unwrap();
        assert_eq!(pin.as_deref(), Some(args[2].as_str()));
        assert_eq!(names, strings(&["A", "B"]));
        assert_eq!(entry_secrets(&strings(&["bridge", "x"])), None);
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn pin_is_sha256_hex_and_stable() {
        let pin = pin("npx", &strings(&["-y", "server"]), &strings(&["TOKEN"]));
        assert!(pin.starts_with(PIN_PREFIX));
        let hex = &pin[PIN_PREFIX.len()..];
        assert_eq!(hex.len(), 64);
        assert!(
            hex.chars()
                .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
        );
        // The encoding is a promise to entries already written: it must not change by accident
        // (benches/launcher.sh computes the same digest in Python).
        assert_eq!(
            pin,
            "sha256:7ab25ab94b567ec0d01b8a14731c51073ca3a7414afcf9933ffb7cccae8b9476"
        );
    }

    #[test]
    fn remote_pin_encoding_is_stable() {
        // Entries already written carry this pin: the encoding must not change by accident
        // (computed independently in Python from the encoding described on `encoded_pin`).
        assert_eq!(
            remote_pin(
                "https://mcp.example.com/mcp",
                &strings(&["Authorization: Bearer {{env.TOKEN}}"]),
                &strings(&["TOKEN", "TOKEN"]),
            ),
            "sha256:6f7a388d661abbc7783ff68e7cfc701976152f9a2b56c9f17191119ea5e2b07b"
        );
    }

    #[test]
    fn pin_changes_with_command_args_and_secret_names() {
        let base = pin("npx", &strings(&["-y", "server"]), &strings(&["TOKEN"]));
        assert_ne!(
            base,
            pin("npm", &strings(&["-y", "server"]), &strings(&["TOKEN"]))
        );
        assert_ne!(
            base,
            pin("npx", &strings(&["-y", "other"]), &strings(&["TOKEN"]))
        );
        assert_ne!(
            base,
            pin("npx", &strings(&["-y", "server"]), &strings(&["OTHER"]))
        );
        assert_ne!(base, pin("npx", &strings(&["-y", "server"]), &[]));
        assert_ne!(
            base,
            pin("npx", &strings(&["-y server"]), &strings(&["TOKEN"]))
        );
    }

    #[test]
    fn pin_does_not_confuse_arguments_with_secret_names() {
        assert_ne!(
            pin("x", &strings(&["A"]), &[]),
            pin("x", &[], &strings(&["A"]))
        );
        assert_ne!(
            pin("x", &strings(&["a", "b"]), &[]),
            pin("x", &strings(&["ab"]), &[])
        );
    }

    #[test]
    fn pin_ignores_the_order_and_repeats_of_secret_names() {
        assert_eq!(
            pin("x", &[], &strings(&["B", "A", "B"])),
            pin("x", &[], &strings(&["A", "B"]))
        );
    }

    #[test]
    fn launcher_args_run_the_command_after_the_pin_and_secrets() {
        let args = launcher_args(
            "npx",
            &strings(&["-y", "--token-from-env"]),
            &strings(&["Z_TOKEN", "A_TOKEN"]),
        );
        let pin = pin(
            "npx",
            &strings(&["-y", "--token-from-env"]),
            &strings(&["A_TOKEN", "Z_TOKEN"]),
        );
        assert_eq!(
            args,
            strings(&[
                "run",
                "--pin",
                &pin,
                "--secret",
                "A_TOKEN",
                "--secret",
                "Z_TOKEN",
                "--",
                "npx",
                "-y",
                "--token-from-env",
            ])
        );
    }

    #[test]
    fn launcher_args_without_secrets() {
        let args = launcher_args("/bin/true", &[], &[]);
        assert_eq!(args[0..2], strings(&["run", "--pin"]));
        assert_eq!(args[3..], strings(&["--", "/bin/true"]));
    }

    #[test]
    fn secret_names_are_environment_variable_names() {
        for good in ["TOKEN", "_X", "GITHUB_PERSONAL_ACCESS_TOKEN", "a1"] {
            assert!(is_secret_name(good), "{good}");
        }
        for bad in ["", "1A", "A-B", "A B", "A=B", "É", "a.b", &"A".repeat(129)] {
            assert!(!is_secret_name(bad), "{bad}");
        }
    }
}
