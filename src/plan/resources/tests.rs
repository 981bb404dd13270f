use super::disk::Disk;
use super::plan::{PlanInput, plan};
use super::want::DesiredFile;
use crate::model::hosts::ADAPTERS;
use crate::model::resources::*;

#[test]
fn a_block_added_then_removed_gives_the_file_back_byte_for_byte() {
    for text in [
        "",
        "# Notes\n",
        "# Notes",
        "# Notes\r\n\r\nMore.",
        "# Notes\r\n",
        "\n\n",
    ] {
        let body = block_body("one\ntwo\n", text);
        let (with, lead) = upsert_block(text, "conventions", &body);
        let lead = lead.expect("a new block records its lead");
        assert_eq!(block_content(&with, "conventions"), Some(body.as_str()));
        assert_eq!(
            remove_block(&with, "conventions", &lead).as_deref(),
            Some(text),
            "{text:?}"
        );
    }
}

#[test]
fn a_block_in_a_crlf_file_has_crlf_lines_and_is_edited_in_place() {
    let text = "a\r\n<!-- dotpack:begin x -->\r\nold\r\n<!-- dotpack:end x -->\r\nafter\r\n";
    let body = block_body("new\nlines", text);
    assert_eq!(body, "new\r\nlines\r\n");
    let (edited, lead) = upsert_block(text, "x", &body);
    assert_eq!(lead, None);
    assert_eq!(
        edited,
        "a\r\n<!-- dotpack:begin x -->\r\nnew\r\nlines\r\n<!-- dotpack:end x -->\r\nafter\r\n"
    );
    assert_eq!(
        remove_block(&edited, "x", "").as_deref(),
        Some("a\r\nafter\r\n")
    );
}

#[test]
fn blocks_of_other_names_are_left_alone() {
    let (one, _) = upsert_block("", "a", "A\n");
    let (two, lead) = upsert_block(&one, "b", "B\n");
    assert_eq!(
        remove_block(&two, "b", &lead.unwrap()).as_deref(),
        Some(one.as_str())
    );
    assert_eq!(block_content(&two, "a"), Some("A\n"));
    assert_eq!(remove_block(&one, "b", ""), None);
}

#[test]
fn paths_that_leave_the_package_are_refused() {
    for bad in [
        "",
        "/etc/x.md",
        "../x.md",
        "a/../../x.md",
        "a//b.md",
        "./a.md",
        "C:/x.md",
        "a\\b.md",
    ] {
        assert!(check_path(bad).is_err(), "{bad}");
    }
    for good in [
        "commands/review.md",
        "skills/pr-review",
        "skills/pr-review/",
        "a..b.md",
    ] {
        assert!(check_path(good).is_ok(), "{good}");
    }
}

fn resource(kind: Kind, text: &str) -> Resource {
    let files = Files::from([("r.md".to_string(), text.as_bytes().to_vec())]);
    load_one(
        kind,
        "r",
        &ResourceDecl {
            path: "r.md".into(),
        },
        &files,
    )
    .unwrap()
}

#[test]
fn a_gemini_command_reads_back_as_the_markdown_prompt_whatever_it_holds() {
    let row = layout_of("gemini-cli", Kind::Command).unwrap();
    for body in [
        "Do $ARGUMENTS.\n",
        "Has ''' quotes\n",
        "ends with a quote'",
        "tab\there\n",
    ] {
        let r = resource(
            Kind::Command,
            &format!("---\ndescription: \"say \\\"hi\\\"\"\n---\n{body}"),
        );
        let out = render(row, &r, "c.toml");
        let table: toml::Table = toml::from_str(&out.files[0].1).unwrap();
        assert_eq!(
            table["prompt"].as_str(),
            Some(body.replace("$ARGUMENTS", "{{args}}").as_str())
        );
        assert_eq!(table["description"].as_str(), Some("say \"hi\""));
    }
}

#[test]
fn a_cursor_rule_says_how_it_activates_and_quotes_what_yaml_needs() {
    let row = layout_of("cursor", Kind::Rule).unwrap();
    let r = resource(
        Kind::Rule,
        "---\ndescription: \"Rules: strict\"\nglobs: \"*.ts, *.tsx\"\nalways: true\n---\nBody\n",
    );
    let out = render(row, &r, "x.mdc");
    assert_eq!(
        out.files[0].1,
        "---\ndescription: \"Rules: strict\"\nglobs: *.ts,*.tsx\nalwaysApply: true\n---\nBody\n"
    );
    assert!(out.dropped.is_empty());
}

#[test]
fn a_rule_meant_to_load_on_request_is_lossy_on_claude_code() {
    let row = layout_of("claude-code", Kind::Rule).unwrap();
    let on_request = resource(Kind::Rule, "---\ndescription: When migrating\n---\nBody\n");
    assert_eq!(render(row, &on_request, "x.md").dropped, ["description"]);
    let scoped = resource(
        Kind::Rule,
        "---\ndescription: d\nglobs: [\"a/**\"]\n---\nBody\n",
    );
    assert!(render(row, &scoped, "x.md").dropped.is_empty());
}

#[test]
fn every_layout_path_stays_below_its_base_once_a_name_is_filled_in() {
    for host in ADAPTERS {
        for row in host.resources {
            for path in [row.project, row.user].into_iter().flatten() {
                let filled = path.replace("{name}", "pr-review");
                assert!(
                    check_path(&filled).is_ok(),
                    "{} {:?}: {filled}",
                    host.id,
                    row.kind
                );
            }
        }
    }
}

#[test]
fn planning_a_new_file_over_an_unowned_one_is_a_collision_and_reads_no_disk() {
    let desired = vec![DesiredFile {
        file: ".claude/commands/r.md".into(),
        block: None,
        hosts: vec!["claude-code"],
        kind: Kind::Command,
        name: "r".into(),
        package: "p".into(),
        version: semver::Version::new(1, 0, 0),
        text: "new\n".into(),
        folder: None,
        dropped: Vec::new(),
    }];
    let mut disk = Disk::default();
    disk.files
        .insert(".claude/commands/r.md".into(), Some("mine\n".into()));
    let root = std::path::Path::new("/nonexistent/project");
    let input = PlanInput {
        root,
        scope: crate::model::hosts::Scope::Project,
        owner: "/nonexistent/project",
        desired: &desired,
        disk: &disk,
        claims: &[],
        force: false,
        keep_edited: false,
        mode: &crate::plan::Mode::Sync,
    };
    let problems = plan(&input).unwrap_err();
    assert!(
        problems[0]
            .message()
            .contains(".claude/commands/r.md already exists"),
        "{problems:?}"
    );
    assert_eq!(
        problems[0].fix(),
        Some("move it away, or `--force` replaces it")
    );
    let forced = plan(&PlanInput {
        force: true,
        ..input
    })
    .unwrap();
    assert_eq!(forced.files[0].after.as_deref(), Some("new\n"));
    assert_eq!(forced.claims[0].sha256, hash("new\n"));
}

mod props {
    use proptest::prelude::*;

    use crate::model::resources::*;

    /// Lines of an instructions file: text, blank lines, marker-like lines of other blocks,
    /// joined with LF or CRLF, with or without a final line ending.
    fn file_text() -> impl Strategy<Value = String> {
        let line = prop_oneof![
            "[a-z #`*-]{0,12}",
            Just(String::new()),
            Just("<!-- dotpack:begin other -->".to_string()),
            Just("<!-- dotpack:end other -->".to_string()),
        ];
        (
            proptest::collection::vec(line, 0..8),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(lines, crlf, final_eol)| {
                let eol = if crlf { "\r\n" } else { "\n" };
                let mut text = lines.join(eol);
                if final_eol && !text.is_empty() {
                    text.push_str(eol);
                }
                text
            })
    }

    proptest! {
        #[test]
        fn adding_then_removing_a_block_is_the_identity(
            text in file_text(),
            snippet in "[a-z \n]{1,40}",
        ) {
            let body = block_body(&snippet, &text);
            let (with, lead) = upsert_block(&text, "mine", &body);
            let lead = lead.unwrap_or_default();
            prop_assert_eq!(block_content(&with, "mine"), Some(body.as_str()));
            prop_assert_eq!(remove_block(&with, "mine", &lead), Some(text.clone()));
            // Updating in place keeps every byte outside the block.
            let other = block_body("changed\n", &text);
            let (updated, none) = upsert_block(&with, "mine", &other);
            prop_assert!(none.is_none());
            prop_assert_eq!(remove_block(&updated, "mine", &lead), Some(text));
        }
    }
}
