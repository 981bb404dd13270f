//! `dotpack completions SHELL` and `dotpack man [COMMAND]`: both generated from the clap
//! definition in [`crate::cli`], so they list exactly the commands and flags the parser accepts.

use anyhow::Result;

use crate::commands::args::{CompletionsArgs, ManArgs};
use crate::ui::printer::Printer;

/// `cli` is the whole command line (`Cli::command()`), handed down by the dispatcher.
pub fn completions(args: CompletionsArgs, cli: clap::Command, printer: &Printer) -> Result<()> {
    let mut command = cli;
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "dotpack", &mut script);
    // Package names after `add`, `info` and `why`, where the shell lets a script add words:
    // they come from `dotpack __complete-packages`, which reads the registries' caches only.
    match args.shell {
        clap_complete::Shell::Bash => script.extend_from_slice(BASH_PACKAGES.as_bytes()),
        clap_complete::Shell::Fish => script.extend_from_slice(FISH_PACKAGES.as_bytes()),
        _ => {}
    }
    printer.out_bytes(&script);
    Ok(())
}

const BASH_PACKAGES: &str = r#"
_dotpack_with_packages() {
    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
    if [[ ${COMP_CWORD} -ge 2 && "$cur" != -* ]]; then
        case "${COMP_WORDS[1]}" in
            add | info | why)
                case "$prev" in
                    --set | --host | --scope | --registry | --manifest-path | --color) ;;
                    *)
                        COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" __complete-packages 2>/dev/null)" -- "$cur"))
                        return 0
                        ;;
                esac
                ;;
        esac
    fi
    _dotpack "$@"
}
complete -F _dotpack_with_packages -o bashdefault -o default dotpack
"#;

const FISH_PACKAGES: &str = r#"complete -c dotpack -n "__fish_seen_subcommand_from add info why" -f -a "(dotpack __complete-packages 2>/dev/null)"
"#;

/// `dotpack __complete-packages`: every package name of the default and declared registries,
/// from the embedded index and the caches (offline: a TAB never waits for the network).
pub fn packages(settings: &crate::ops::Settings, printer: &Printer) -> Result<()> {
    let settings = crate::ops::Settings {
        offline: true,
        ..settings.clone()
    };
    let manifest = crate::ops::optional_manifest(&settings);
    let registries = crate::ops::registries(&settings, manifest.as_ref())?;
    let mut names = std::collections::BTreeSet::new();
    let sources = std::iter::once(registries.default_index())
        .chain(registries.named_all().map(|(_, source)| source));
    for source in sources {
        // A registry that cannot answer from its cache adds nothing.
        names.extend(source.names().unwrap_or_default());
    }
    for name in names {
        printer.out(name);
    }
    Ok(())
}

pub fn man(args: ManArgs, cli: clap::Command, printer: &Printer) -> Result<()> {
    let page = man_page(cli, args.command.as_deref())?;
    printer.out_bytes(&page);
    Ok(())
}

/// The roff man page of dotpack (`None`) or of one command, by name or alias.
pub fn man_page(cli: clap::Command, command: Option<&str>) -> Result<Vec<u8>> {
    let mut root = cli;
    root.build();
    let page = match command {
        None => root,
        Some(name) => {
            let Some(sub) = root.find_subcommand(name) else {
                let names: Vec<&str> = root
                    .get_subcommands()
                    .map(|c| c.get_name())
                    .filter(|n| *n != "help")
                    .collect();
                let hint = crate::util::suggest::closest(name, names.iter().copied())
                    .map(|c| format!("did you mean `{c}`? "))
                    .unwrap_or_default();
                return Err(crate::util::error::Error::usage(format!(
                    "`{name}` is not a dotpack command"
                ))
                .help(format!("{hint}commands are: {}", names.join(", ")))
                .into());
            };
            // `dotpack-add(1)`, as git and cargo name the pages of their commands.
            let full = format!("dotpack-{}", sub.get_name());
            sub.clone()
                .name(full)
                .version(root.get_version().unwrap_or_default().to_string())
        }
    };
    let mut out = Vec::new();
    clap_mangen::Man::new(page).render(&mut out)?;
    Ok(out)
}
