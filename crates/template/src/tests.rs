use super::*;
use proptest::prelude::*;

fn props(pairs: &[(&str, &str)]) -> Props {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), Value::from(*v)))
        .collect()
}

fn cx(p: &Props) -> Context<'_> {
    Context::new(p)
}

fn render(s: &str, p: &Props) -> Result<String, TemplateError> {
    render_for_host(s, &cx(p), EnvSyntax::DollarBrace)
}

fn ok(s: &str, p: &[(&str, &str)]) -> String {
    render(s, &props(p)).unwrap()
}

fn err(s: &str, p: &[(&str, &str)]) -> String {
    render(s, &props(p)).unwrap_err().to_string()
}

fn malformed(s: &str) -> String {
    match parse_parts(s, &cx(&Props::new())) {
        Err(TemplateError::Malformed { message, .. }) => message,
        other => panic!("expected Malformed for {s:?}, got {other:?}"),
    }
}

fn env(names: &[&str], default: Option<&str>) -> Part {
    Part::Env {
        names: names.iter().map(|n| n.to_string()).collect(),
        default: default.map(str::to_string),
    }
}

// ---- substitution -------------------------------------------------------------------------

#[test]
fn props_and_env_render_per_host() {
    let props = props(&[("port", "4000")]);
    let s = "http://127.0.0.1:{{props.port}}/mcp?k={{env.KEY}}";
    assert_eq!(
        render_for_host(s, &cx(&props), EnvSyntax::DollarBrace).unwrap(),
        "http://127.0.0.1:4000/mcp?k=${KEY}"
    );
    assert_eq!(
        render_for_host(s, &cx(&props), EnvSyntax::EnvColon).unwrap(),
        "http://127.0.0.1:4000/mcp?k=${env:KEY}"
    );
    assert_eq!(
        render_for_host(s, &cx(&props), EnvSyntax::BraceEnv).unwrap(),
        "http://127.0.0.1:4000/mcp?k={env:KEY}"
    );
    assert_eq!(
        render_for_host(s, &cx(&props), EnvSyntax::None),
        Err(TemplateError::EnvUnsupported("KEY".into()))
    );
    assert_eq!(
        sole_env_ref("{{env.TOKEN}}", &cx(&props)).as_deref(),
        Some("TOKEN")
    );
    assert_eq!(sole_env_ref("Bearer {{env.TOKEN}}", &cx(&props)), None);
    assert_eq!(sole_env_ref("{{env.TOKEN|'x'}}", &cx(&props)), None);
    assert_eq!(sole_env_ref("{{env.A|env.B}}", &cx(&props)), None);
}

#[test]
fn legacy_input_context_and_whitespace() {
    assert_eq!(
        ok("{{input.a}}-{{ props.a }}-{{  input.a  }}", &[("a", "x")]),
        "x-x-x"
    );
    assert_eq!(ok("{{props.my-key}}", &[("my-key", "v")]), "v");
}

#[test]
fn env_is_never_resolved() {
    // Even when the process has the variable, its value never reaches the output.
    let parts = parse_parts("Bearer {{env.PATH}}", &cx(&Props::new())).unwrap();
    assert_eq!(
        parts,
        vec![Part::Text("Bearer ".into()), env(&["PATH"], None)]
    );
}

#[test]
fn empty_and_plain_strings() {
    assert_eq!(parse_parts("", &cx(&Props::new())).unwrap(), vec![]);
    assert_eq!(ok("plain", &[]), "plain");
    assert_eq!(
        ok("@modelcontextprotocol/server-filesystem", &[]),
        "@modelcontextprotocol/server-filesystem"
    );
    assert_eq!(
        ok("user@elsewhere.org @iffy @for x", &[]),
        "user@elsewhere.org @iffy @for x"
    );
    assert_eq!(
        ok("{a} } { }} {\"json\": 1}", &[]),
        "{a} } { }} {\"json\": 1}"
    );
    assert_eq!(
        ok("C:\\{{props.dir}}\\x", &[("dir", "Users")]),
        "C:\\Users\\x"
    );
}

#[test]
fn prop_values_are_not_reparsed() {
    assert_eq!(
        ok("{{props.a}}", &[("a", "{{env.X}} @if(x)")]),
        "{{env.X}} @if(x)"
    );
}

#[test]
fn escaping_literal_braces_and_at() {
    assert_eq!(ok("{{'{{'}}props.x}}", &[]), "{{props.x}}");
    assert_eq!(ok("{{'@'}}if(x)", &[]), "@if(x)");
    assert_eq!(ok("{{\"}}\"}}", &[]), "}}");
    assert_eq!(ok("{{'a|b'}}", &[]), "a|b");
}

// ---- defaults and chains --------------------------------------------------------------------

#[test]
fn prop_defaults() {
    assert_eq!(ok("{{props.host|'localhost'}}", &[]), "localhost");
    assert_eq!(ok("{{props.host|'localhost'}}", &[("host", "h")]), "h");
    assert_eq!(ok("{{props.host | \"local host\" }}", &[]), "local host");
    assert_eq!(ok("{{props.a|props.b|'d'}}", &[("b", "B")]), "B");
    assert_eq!(ok("{{props.a|'it\"s'}}", &[]), "it\"s");
    assert_eq!(ok("{{props.a|\"it's\"}}", &[]), "it's");
    // Set to empty counts as set.
    assert_eq!(ok("[{{props.a|'d'}}]", &[("a", "")]), "[]");
    assert_eq!(ok("{{props.a|''}}", &[]), "");
}

#[test]
fn env_defaults_per_host() {
    let s = "{{env.API_URL|'https://api.example.com'}}/data";
    assert_eq!(
        render_for_host(s, &cx(&Props::new()), EnvSyntax::DollarBrace).unwrap(),
        "${API_URL:-https://api.example.com}/data"
    );
    for syntax in [EnvSyntax::EnvColon, EnvSyntax::BraceEnv] {
        let e = render_for_host(s, &cx(&Props::new()), syntax).unwrap_err();
        assert_eq!(
            e,
            TemplateError::DefaultUnsupported {
                name: "API_URL".into(),
                default: "https://api.example.com".into(),
                syntax
            }
        );
        let m = e.to_string();
        assert!(m.contains("cannot express a default"), "{m}");
        assert!(m.contains(&syntax.example("API_URL")), "{m}");
    }
    assert_eq!(
        render_for_host(s, &cx(&Props::new()), EnvSyntax::None),
        Err(TemplateError::EnvUnsupported("API_URL".into()))
    );
    // A default `${VAR:-…}` cannot hold `}`.
    let e = render("{{env.A|'x}y'}}", &Props::new()).unwrap_err();
    assert!(matches!(e, TemplateError::DefaultUnsupported { .. }));
    assert!(e.to_string().contains("contains `}`"), "{e}");
}

#[test]
fn an_optional_variable_is_empty_when_unset_on_every_host_that_can_say_so() {
    let s = "{{env.API_KEY|''}}";
    let on = |syntax| render_for_host(s, &cx(&Props::new()), syntax);
    // Claude Code passes an unset `${API_KEY}` on as that text; `:-` makes it empty.
    assert_eq!(on(EnvSyntax::DollarBrace).unwrap(), "${API_KEY:-}");
    // VS Code's resolver and opencode give an unset variable as the empty text already.
    assert_eq!(on(EnvSyntax::EnvColon).unwrap(), "${env:API_KEY}");
    assert_eq!(on(EnvSyntax::BraceEnv).unwrap(), "{env:API_KEY}");
    assert_eq!(on(EnvSyntax::Secrets).unwrap(), "${{ secrets.API_KEY }}");
    // Amazon Q would pass the text on: no way to say "empty when unset".
    assert!(matches!(
        on(EnvSyntax::EnvColonKeepsUnset),
        Err(TemplateError::DefaultUnsupported { .. })
    ));
    assert_eq!(
        on(EnvSyntax::None),
        Err(TemplateError::EnvUnsupported("API_KEY".into()))
    );
    // Forwarding by name passes nothing when the variable is unset: an optional one forwards.
    assert_eq!(
        forwarded_env_ref(s, &cx(&Props::new())).as_deref(),
        Some("API_KEY")
    );
    assert_eq!(sole_env_ref(s, &cx(&Props::new())), None);
    assert_eq!(forwarded_env_ref("{{env.A|'x'}}", &cx(&Props::new())), None);
}

#[test]
fn multi_variable_chains() {
    let s = "{{env.API_URL|env.FALLBACK_URL|'https://api.example.com'}}";
    assert_eq!(
        parse_parts(s, &cx(&Props::new())).unwrap(),
        vec![env(
            &["API_URL", "FALLBACK_URL"],
            Some("https://api.example.com")
        )]
    );
    for syntax in [
        EnvSyntax::DollarBrace,
        EnvSyntax::EnvColon,
        EnvSyntax::BraceEnv,
    ] {
        let e = render_for_host(s, &cx(&Props::new()), syntax).unwrap_err();
        assert_eq!(
            e,
            TemplateError::EnvChainUnsupported(vec!["API_URL".into(), "FALLBACK_URL".into()])
        );
        assert!(e.to_string().contains("`{{env.API_URL}}`"), "{e}");
    }
    assert_eq!(
        render_for_host(s, &cx(&Props::new()), EnvSyntax::None),
        Err(TemplateError::EnvUnsupported("API_URL".into()))
    );
}

#[test]
fn prop_then_env_then_default() {
    let s = "{{props.url|env.URL}}";
    assert_eq!(ok(s, &[("url", "u")]), "u");
    assert_eq!(ok(s, &[]), "${URL}");
    assert_eq!(
        render_for_host(s, &cx(&Props::new()), EnvSyntax::EnvColon).unwrap(),
        "${env:URL}"
    );
    // A later input becomes the reference's default.
    assert_eq!(ok("{{env.URL|props.url}}", &[("url", "u")]), "${URL:-u}");
    assert_eq!(ok("{{env.URL|props.url}}", &[]), "${URL}");
    assert_eq!(ok("{{env.URL|props.url|'d'}}", &[]), "${URL:-d}");
}

#[test]
fn missing_prop() {
    assert_eq!(
        render("{{props.port}}", &Props::new()),
        Err(TemplateError::MissingProp("port".into()))
    );
    assert_eq!(
        render("{{props.a|props.b}}", &Props::new()),
        Err(TemplateError::MissingProp("a".into()))
    );
    let m = err("{{props.port}}", &[]);
    assert!(m.contains("--set port=VALUE"), "{m}");
}

// ---- conditionals ---------------------------------------------------------------------------

#[test]
fn if_truthy_inline() {
    let s = "@if(props.online)Server is online@else Server is offline@endif";
    assert_eq!(ok(s, &[("online", "yes")]), "Server is online");
    assert_eq!(ok(s, &[]), " Server is offline");
    for falsy in ["", "false", "FALSE", "0", "0.0", "no", "off", " Off "] {
        assert_eq!(
            ok(s, &[("online", falsy)]),
            " Server is offline",
            "{falsy:?}"
        );
    }
    for t in ["true", "1", "x", "-1"] {
        assert_eq!(ok(s, &[("online", t)]), "Server is online", "{t:?}");
    }
}

#[test]
fn if_elseif_else_comparisons() {
    let s = "@if(props.status == \"active\")A@elseif(props.status == 'pending')P@elseif(props.status != 'x')O@else X@endif";
    assert_eq!(ok(s, &[("status", "active")]), "A");
    assert_eq!(ok(s, &[("status", "pending")]), "P");
    assert_eq!(ok(s, &[("status", "other")]), "O");
    assert_eq!(ok(s, &[("status", "x")]), " X");
    assert_eq!(ok(s, &[]), "O");
}

#[test]
fn numeric_comparisons() {
    let cases = [
        ("props.n > 18", "19", true),
        ("props.n > 18", "18", false),
        ("props.n >= 18", "18", true),
        ("props.n < 100", "99.5", true),
        ("props.n <= 100", "100", true),
        ("props.n <= 100", "101", false),
        // Numerically, not as text: "9" > "10" as text.
        ("props.n > 10", "9", false),
        ("props.n == 7", "007", true),
        ("props.n != 7", "7.0", false),
        ("18 < props.n", "20", true),
        ("props.n == props.m", "3", true),
    ];
    for (cond, n, want) in cases {
        let s = format!("@if({cond})y@else n@endif");
        let got = ok(&s, &[("n", n), ("m", "3")]);
        assert_eq!(got == "y", want, "{cond} with n={n}: {got}");
    }
    let m = err("@if(props.n > 1)y@endif", &[("n", "abc")]);
    assert!(
        m.contains("`props.n` is `abc`") && m.contains("compares numbers"),
        "{m}"
    );
    assert_eq!(
        render("@if(props.n > 1)y@endif", &Props::new()),
        Err(TemplateError::MissingProp("n".into()))
    );
}

#[test]
fn untaken_branches_need_no_values() {
    let s = "@if(props.tls)https://{{props.host}}@else http://localhost@endif";
    assert_eq!(ok(s, &[]), " http://localhost");
}

#[test]
fn multiline_directives_take_their_lines() {
    let s = "Welcome\n\n  @if(props.premium)\n  premium\n  @else\n  upgrade\n  @endif\nbye";
    assert_eq!(ok(s, &[("premium", "1")]), "Welcome\n\n  premium\nbye");
    assert_eq!(ok(s, &[]), "Welcome\n\n  upgrade\nbye");
    let crlf = "a\r\n@if(props.x)\r\nb\r\n@endif\r\nc";
    assert_eq!(ok(crlf, &[("x", "1")]), "a\r\nb\r\nc");
    // Two directives on one line are inline: nothing is stripped.
    assert_eq!(ok("a\n@if(props.x)b@endif\nc", &[("x", "1")]), "a\nb\nc");
}

#[test]
fn nested_blocks() {
    let s = "@if(props.a)A@if(props.b)B@else b@endif@endif";
    assert_eq!(ok(s, &[("a", "1"), ("b", "1")]), "AB");
    assert_eq!(ok(s, &[("a", "1")]), "A b");
    assert_eq!(ok(s, &[("b", "1")]), "");
}

// ---- loops ----------------------------------------------------------------------------------

#[test]
fn for_range() {
    assert_eq!(
        ok("Numbers: @for(i in range(0, 10)){{i}} @endfor", &[]),
        "Numbers: 0 1 2 3 4 5 6 7 8 9 "
    );
    assert_eq!(ok("@for(i in range(3)){{i}}@endfor", &[]), "012");
    assert_eq!(ok("@for(i in range(5, 2)){{i}}@endfor", &[]), "");
    assert_eq!(ok("@for(i in range(-2, 1)){{i}},@endfor", &[]), "-2,-1,0,");
    assert_eq!(
        ok(
            "@for(i in range(1, props.n + 1)){{i}}@endfor",
            &[("n", "3")]
        ),
        "123"
    );
    assert_eq!(
        ok(
            "@for(i in range(props.n - 2, props.n)){{i}}@endfor",
            &[("n", "5")]
        ),
        "34"
    );
    let list = "Items:\n@for(i in range(0, 3))\n  {{i}}. Item number {{i}}\n@endfor\n";
    assert_eq!(
        ok(list, &[]),
        "Items:\n  0. Item number 0\n  1. Item number 1\n  2. Item number 2\n"
    );
}

#[test]
fn foreach_comma_separated() {
    let s = "@foreach(item in props.items)- {{item}}\n@endforeach";
    assert_eq!(
        ok(s, &[("items", "Apple, Banana,,Cherry ")]),
        "- Apple\n- Banana\n- Cherry\n"
    );
    assert_eq!(ok(s, &[("items", "")]), "");
    assert_eq!(
        render(s, &Props::new()),
        Err(TemplateError::MissingProp("items".into()))
    );
    // Args built from a list, with a condition on the loop variable.
    let s = "@foreach(t in props.tools)@if(t != 'shell')--allow={{t}} @endif@endforeach";
    assert_eq!(
        ok(s, &[("tools", "read,shell,write")]),
        "--allow=read --allow=write "
    );
}

#[test]
fn nested_loops_and_shadowing() {
    let s = "@for(i in range(0, 2))@for(j in range(0, i + 2)){{i}}{{j}} @endfor@endfor";
    assert_eq!(ok(s, &[]), "00 01 10 11 12 ");
    let s = "@foreach(x in props.a)@foreach(x in props.b){{x}}@endforeach{{x}}@endforeach";
    assert_eq!(ok(s, &[("a", "1,2"), ("b", "y")]), "y1y2");
    // A loop variable with a default still takes the loop value.
    assert_eq!(ok("@for(i in range(1)){{i|'d'}}@endfor", &[]), "0");
}

#[test]
fn env_inside_loops_stays_a_reference() {
    let s = "@foreach(h in props.hosts){{h}}={{env.TOKEN}};@endforeach";
    assert_eq!(ok(s, &[("hosts", "a,b")]), "a=${TOKEN};b=${TOKEN};");
}

#[test]
fn loop_limits() {
    let m = err("@for(i in range(0, 100000))x@endfor", &[]);
    assert!(m.contains("more than 10000 times"), "{m}");
    let m = err(
        "@for(i in range(0, 200))@for(j in range(0, 200))x@endfor@endfor",
        &[],
    );
    assert!(m.contains("more than 10000 times"), "{m}");
    let m = err(
        "@for(i in range(props.n, 1))x@endfor",
        &[("n", "-9223372036854775808")],
    );
    assert!(m.contains("more than"), "{m}");
    let m = err(
        "@for(i in range(0 - props.n, 1))x@endfor",
        &[("n", "-9223372036854775808")],
    );
    assert!(m.contains("too large"), "{m}");
    let deep = "@if(props.x)".repeat(40) + &"@endif".repeat(40);
    assert!(malformed(&deep).contains("more than 32 deep"));
    assert_eq!(
        ok(&("@if(props.x)".repeat(30) + &"@endif".repeat(30)), &[]),
        ""
    );
}

// ---- errors ---------------------------------------------------------------------------------

#[test]
fn expression_errors_quote_the_piece_and_the_fix() {
    let cases: &[(&str, &[&str])] = &[
        ("a {{props.x", &["`{{props.x` is never closed", "add `}}`"]),
        (
            "{{props.x {{props.y}}",
            &["`{{props.x ` is not closed before the next `{{`"],
        ),
        ("{{props.x|'abc}}", &["quote that is never closed"]),
        (
            "{{props.x|'it's}}",
            &["not one quoted text", "inside `\"…\"`"],
        ),
        (
            "{{props.x|'it's'}}",
            &["quote that is never closed", "other kind of quote"],
        ),
        (
            "{{foo.x}}",
            &["`{{foo.x}}`: unknown context `foo`", "props.NAME"],
        ),
        ("{{x}}", &["`x` is not a loop variable", "{{props.x}}"]),
        ("{{}}", &["`{{}}` is empty"]),
        ("{{ }}", &["is empty"]),
        ("{{props.x|}}", &["empty alternative"]),
        ("{{props}}", &["name the field", "{{props.NAME}}"]),
        ("{{env}}", &["{{env.NAME}}"]),
        ("{{env.1X}}", &["`1X` is not an environment variable name"]),
        (
            "{{env.A B}}",
            &["`A B` is not an environment variable name"],
        ),
        ("{{props.a b}}", &["`a b` is not an input name"]),
        ("{{'d'|props.x}}", &["the default `'d'` must come last"]),
        ("{{'a'b}}", &["`'a'b` is not one quoted text"]),
    ];
    for (s, wants) in cases {
        let m = malformed(s);
        for want in *wants {
            assert!(m.contains(want), "{s:?}: {m:?} lacks {want:?}");
        }
    }
}

#[test]
fn block_errors_quote_the_piece_and_the_fix() {
    let cases: &[(&str, &[&str])] = &[
        (
            "@if(props.x)a",
            &["`@if(props.x)` is never closed", "add `@endif`"],
        ),
        ("@if(props.x)a@else b", &["`@if(props.x)` is never closed"]),
        ("a@endif", &["`@endif` has no matching `@if(...)`"]),
        (
            "@if (props.x)a@endif",
            &["no matching `@if(...)`", "no space before `(`"],
        ),
        ("a@else b", &["`@else` has no matching `@if(...)`"]),
        (
            "@elseif(props.x)",
            &["`@elseif(props.x)` has no matching `@if(...)`"],
        ),
        ("@endfor", &["`@endfor` has no matching `@for(...)`"]),
        (
            "@endforeach",
            &["`@endforeach` has no matching `@foreach(...)`"],
        ),
        (
            "@if(props.x)a@else b@else c@endif",
            &["`@else` comes after `@else`"],
        ),
        (
            "@if(props.x)a@else b@elseif(props.y)c@endif",
            &["comes after `@else`"],
        ),
        (
            "@if(props.x)@endfor",
            &["`@if(props.x)` is closed by `@endfor`", "`@endif`"],
        ),
        (
            "@for(i in range(2))@endif",
            &["closed by `@endif`", "`@endfor`"],
        ),
        (
            "@foreach(i in props.l)@endfor",
            &["closed by `@endfor`", "`@endforeach`"],
        ),
        ("@for(i in range(2))", &["never closed", "`@endfor`"]),
        ("@foreach(i in props.l)", &["never closed", "`@endforeach`"]),
        ("@if(props.x", &["`@if(props.x` has no closing `)`"]),
        ("@if()a@endif", &["`@if()` has no condition"]),
        ("@if(props.x = 'a')a@endif", &["compare with `==`, not `=`"]),
        ("@if(!props.x)a@endif", &["`!` is not supported"]),
        (
            "@if(props.a && props.b)a@endif",
            &["`&&` and `||` are not supported"],
        ),
        ("@if(props.a == )a@endif", &["needs a value on both sides"]),
        ("@if(active)a@endif", &["`active` is neither", "'active'"]),
        ("@if({{props.x}})a@endif", &["without braces"]),
        ("@if(foo.x)a@endif", &["unknown context `foo`"]),
        ("@if(props.a == 'x)a@endif", &["has no closing `)`"]),
        (
            "@for(i in 1..3)x@endfor",
            &["`range(START, END)`", "@foreach"],
        ),
        (
            "@for(i range(3))x@endfor",
            &["should read `@for(NAME in range(START, END))`"],
        ),
        (
            "@for(i in range(1, 2, 3))x@endfor",
            &["`range` takes `START, END`"],
        ),
        ("@for(i in range(1, ))x@endfor", &["`` is empty"]),
        (
            "@for(i in range(1, 2 +))x@endfor",
            &["ends with an operator"],
        ),
        ("@for(i in range(1, 2 * 3))x@endfor", &["unexpected `*`"]),
        (
            "@for(i in range(0, k))x@endfor",
            &["`k` is not a loop variable"],
        ),
        ("@for(props in range(2))x@endfor", &["`props` is reserved"]),
        ("@for(1i in range(2))x@endfor", &["loop variable `1i`"]),
        (
            "@foreach(x props.l)y@endforeach",
            &["should read `@foreach(NAME in props.LIST)`"],
        ),
    ];
    for (s, wants) in cases {
        let m = malformed(s);
        for want in *wants {
            assert!(m.contains(want), "{s:?}: {m:?} lacks {want:?}");
        }
    }
}

#[test]
fn runtime_range_errors() {
    let m = err("@for(i in range(0, props.n))x@endfor", &[("n", "abc")]);
    assert!(m.contains("`props.n` is `abc`, not a whole number"), "{m}");
    let m = err("@for(i in range(0, 2.5))x@endfor", &[]);
    assert!(m.contains("not a whole number"), "{m}");
    assert_eq!(
        render("@for(i in range(0, props.n))x@endfor", &Props::new()),
        Err(TemplateError::MissingProp("n".into()))
    );
}

#[test]
fn env_cannot_decide_conditions_or_loops() {
    for s in [
        "@if(env.DEBUG)x@endif",
        "@if(props.a == env.B)x@endif",
        "@if(props.a)@elseif(env.B)x@endif",
        "@for(i in range(0, env.N))x@endfor",
        "@foreach(x in env.LIST)x@endforeach",
    ] {
        let e = parse_parts(s, &cx(&Props::new())).unwrap_err();
        assert!(matches!(e, TemplateError::EnvCondition(_)), "{s}: {e:?}");
        assert!(e.to_string().contains("install time"), "{e}");
    }
    assert!(check("@if(env.DEBUG)x@endif").is_err());
}

#[test]
fn static_errors_do_not_depend_on_props() {
    // An error in a branch that would not be taken is still reported.
    assert!(check("@if(props.x)@else{{foo.y}}@endif").is_err());
    assert!(render("@if(props.x){{foo.b}}@endif", &Props::new()).is_err());
    assert!(check("{{props.a|'d'}} @for(i in range(props.n)){{i}}@endfor").is_ok());
}

#[test]
fn error_messages_render() {
    assert_eq!(
        TemplateError::MissingProp("port".into()).to_string(),
        "`{{props.port}}` has no value: set it with `--set port=VALUE` or give the input a default"
    );
    assert_eq!(
        TemplateError::EnvUnsupported("K".into()).to_string(),
        "this host cannot read environment variables inside config values (`{{env.K}}`)"
    );
}

// ---- references -----------------------------------------------------------------------------

#[test]
fn env_and_prop_refs() {
    let s = "{{env.A|env.B|'x'}} {{props.p|env.C}} {{input.q}} {{env.A}} \
             @if(props.flag == 'env.NOT')@foreach(i in props.list){{i}}@endforeach@endif \
             @for(j in range(props.lo, props.hi-1))@endfor {{'env.Z'}} {{props.a.b}}";
    assert_eq!(env_refs(s), ["A", "B", "C"]);
    assert_eq!(prop_refs(s), ["p", "q", "flag", "list", "lo", "hi", "a"]);
    // Lenient: what precedes a syntax error is still reported.
    assert_eq!(env_refs("{{env.X}} {{env.Y"), ["X"]);
    assert_eq!(prop_refs("{{props.a}} @if(props.b"), ["a"]);
    assert!(env_refs("no templates").is_empty());
}

#[test]
fn env_chains_are_found_whatever_the_props() {
    let s = "a {{env.A|env.B|'x'}} {{props.p|env.C|env.D}} {{env.E|'y'}} {{props.q|env.F}} \
             @if(props.f){{ env.G | env.H }}@endif {{'env.I|env.J'}}";
    assert_eq!(
        env_chains(s),
        [
            (2, vec!["A".to_string(), "B".to_string()]),
            (22, vec!["C".to_string(), "D".to_string()]),
            (90, vec!["G".to_string(), "H".to_string()]),
        ]
    );
    assert!(env_chains("{{env.A}} {{env.B|''}} plain").is_empty());
}

#[test]
fn env_syntax_examples() {
    assert_eq!(EnvSyntax::DollarBrace.example("K"), "${K}");
    assert_eq!(EnvSyntax::EnvColon.example("K"), "${env:K}");
    assert_eq!(EnvSyntax::BraceEnv.example("K"), "{env:K}");
    assert_eq!(
        env_ref(&["K".into()], Some("d"), EnvSyntax::DollarBrace).unwrap(),
        "${K:-d}"
    );
    assert!(env_ref(&[], None, EnvSyntax::DollarBrace).is_err());
}

// ---- properties -----------------------------------------------------------------------------

fn any_syntax() -> impl Strategy<Value = EnvSyntax> {
    prop_oneof![
        Just(EnvSyntax::DollarBrace),
        Just(EnvSyntax::EnvColon),
        Just(EnvSyntax::EnvColonKeepsUnset),
        Just(EnvSyntax::BraceEnv),
        Just(EnvSyntax::None),
    ]
}

/// Strings built from template pieces, to reach deep into the parser.
fn template_like() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("{{".to_string()),
        Just("}}".to_string()),
        Just("@if(".to_string()),
        Just("@elseif(".to_string()),
        Just("@else".to_string()),
        Just("@endif".to_string()),
        Just("@for(i in range(".to_string()),
        Just("@endfor".to_string()),
        Just("@foreach(x in ".to_string()),
        Just("@endforeach".to_string()),
        Just("props.a".to_string()),
        Just("props.c".to_string()),
        Just("props.b".to_string()),
        Just("env.E".to_string()),
        Just("|".to_string()),
        Just("'".to_string()),
        Just("\"".to_string()),
        Just(")".to_string()),
        Just("(".to_string()),
        Just(", ".to_string()),
        Just("==".to_string()),
        Just(">".to_string()),
        Just("-".to_string()),
        Just("\n".to_string()),
        Just("i".to_string()),
        Just("[".to_string()),
        Just("]".to_string()),
        Just(".".to_string()),
        Just("host".to_string()),
        Just("$".to_string()),
        Just("${".to_string()),
        Just("x".to_string()),
        "[ -~é€😀]{0,3}",
    ];
    prop::collection::vec(piece, 0..24).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn arbitrary_strings_never_panic(s in any::<String>(), syntax in any_syntax()) {
        let p = props(&[("a", "3"), ("b", "x,y")]);
        let _ = render_for_host(&s, &cx(&p), syntax);
        let _ = sole_env_ref(&s, &cx(&p));
        let _ = env_refs(&s);
        let _ = prop_refs(&s);
        let _ = value_of(&s, &cx(&p));
        let _ = input_paths(&s);
        let _ = as_templates(&s, true);
    }

    #[test]
    fn template_like_strings_never_panic(s in template_like(), syntax in any_syntax()) {
        let p = typed(serde_json::json!({"a": 3, "b": ["x", "y"], "c": {"d": "e", "l": [1, 2]}}));
        let _ = render_for_host(&s, &cx(&p), syntax);
        let _ = check(&s);
        let _ = env_refs(&s);
        let _ = prop_refs(&s);
        let _ = value_of(&s, &cx(&p));
        let _ = input_paths(&s);
        let _ = render_for_host(&s, &Context::for_host(&p, "codex"), syntax);
    }

    #[test]
    fn strings_without_templates_render_unchanged(
        s in "[^{@]*",
        syntax in any_syntax(),
    ) {
        prop_assert_eq!(render_for_host(&s, &cx(&Props::new()), syntax).unwrap(), s.clone());
        prop_assert!(env_refs(&s).is_empty());
        prop_assert!(prop_refs(&s).is_empty());
    }

    #[test]
    fn prop_values_pass_through_verbatim(v in any::<String>(), syntax in any_syntax()) {
        let p = props(&[("v", &v)]);
        prop_assert_eq!(render_for_host("<{{props.v}}>", &cx(&p), syntax).unwrap(), format!("<{v}>"));
    }
}

// ---- typed values ---------------------------------------------------------------------------

fn typed(v: serde_json::Value) -> Props {
    match v {
        Value::Object(map) => map.into_iter().collect(),
        _ => Props::new(),
    }
}

#[test]
fn nested_paths_indexes_and_typed_text() {
    let p = typed(serde_json::json!({
        "user": {"id": 7, "tags": ["a", "b"], "on": true},
        "n": 2,
        "dirs": ["/x", "/y"],
        "csv": "p, q"
    }));
    let r = |s: &str| render(s, &p).unwrap();
    assert_eq!(r("{{props.user.id}}-{{input.user.tags[1]}}"), "7-b");
    assert_eq!(r("{{props.user.tags[props.n - 1]}}"), "b");
    assert_eq!(r("{{props.user['id']}}"), "7");
    assert_eq!(r("{{props.csv[1]}}"), "q");
    assert_eq!(
        r("{{props.user.on}} {{props.dirs}}"),
        "true [\"/x\",\"/y\"]"
    );
    assert_eq!(r("{{props.user.missing|'d'}}"), "d");
    assert_eq!(r("{{props.dirs[5]|props.dirs[0]}}"), "/x");
    assert_eq!(r("@if(props.user.tags[9])y@else n@endif"), " n");
    assert_eq!(r("@foreach(d in props.dirs)[{{d}}]@endforeach"), "[/x][/y]");
    assert_eq!(
        r("@for(i in range(0, props.n))@if(props.dirs[i] == '/y')Y@endif@endfor"),
        "Y"
    );
    // Typed truthiness: false, 0, empty lists and objects are false.
    let f = typed(serde_json::json!({"b": false, "z": 0, "l": [], "o": {}}));
    for name in ["b", "z", "l", "o", "absent"] {
        let s = format!("@if(props.{name})y@else n@endif");
        assert_eq!(render(&s, &f).unwrap(), " n", "{name}");
    }
}

#[test]
fn paths_into_values_without_such_fields_are_errors() {
    let p = typed(serde_json::json!({"port": 3845, "user": {"id": 1}, "list": [1]}));
    let e = render("{{props.port.x}}", &p).unwrap_err().to_string();
    assert!(
        e.contains("`props.port` is a number, which has no field `x`"),
        "{e}"
    );
    let e = render("{{props.list.x}}", &p).unwrap_err().to_string();
    assert!(e.contains("is a list, which has no field `x`"), "{e}");
    let e = render("{{props.user.name}}", &p).unwrap_err().to_string();
    assert!(e.contains("`props.user.name` has no value"), "{e}");
    let e = render("@foreach(x in props.port)@endforeach", &p)
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a list"), "{e}");
}

#[test]
fn errors_carry_their_position() {
    let e = check("ab {{foo.x}}").unwrap_err();
    assert_eq!(e.position(), Some((3, 1, 4)));
    assert!(
        e.to_string()
            .starts_with("malformed template at column 4: "),
        "{e}"
    );
    let e = check("line one\n  @if(props.a)unclosed").unwrap_err();
    assert_eq!(e.position(), Some((11, 2, 3)));
    assert!(e.to_string().contains("at line 2, column 3"), "{e}");
    assert!(e.message().contains("`@if(props.a)` is never closed"));
    let p = typed(serde_json::json!({"n": 1}));
    let e = render("é {{props.n.x}}", &p).unwrap_err();
    assert_eq!(e.position(), Some((3, 1, 3)));
}

#[test]
fn host_conditions_and_host_id() {
    let p = Props::new();
    let s = "@if(host == 'codex')c@elseif(host.id != \"cursor\")o@endif:{{host.id}}";
    let on = |id| render_for_host(s, &Context::for_host(&p, id), EnvSyntax::DollarBrace);
    assert_eq!(on("codex").unwrap(), "c:codex");
    assert_eq!(on("vscode").unwrap(), "o:vscode");
    assert_eq!(on("cursor").unwrap(), ":cursor");
    let e = render(s, &p).unwrap_err().to_string();
    assert!(
        e.contains("only known when dotpack writes the server"),
        "{e}"
    );
    assert!(malformed("{{host.name}}").contains("only an id"));
    assert!(malformed("@for(host in range(2))@endfor").contains("reserved"));
}

#[test]
fn sole_expressions_keep_their_type() {
    let p = typed(serde_json::json!({"dirs": ["/a", "/b"], "t": 30, "s": "x"}));
    let c = cx(&p);
    assert_eq!(
        value_of("{{props.dirs}}", &c).unwrap(),
        Some(serde_json::json!(["/a", "/b"]))
    );
    assert_eq!(
        value_of("{{ props.t }}", &c).unwrap(),
        Some(serde_json::json!(30))
    );
    assert_eq!(
        value_of("{{props.nope|'5'}}", &c).unwrap(),
        Some(serde_json::json!("5"))
    );
    assert_eq!(value_of("x{{props.t}}", &c).unwrap(), None);
    assert_eq!(value_of("{{props.t}}{{props.s}}", &c).unwrap(), None);
    assert_eq!(value_of("{{env.X|props.t}}", &c).unwrap(), None);
    assert_eq!(value_of("{{props.nope}}", &c).unwrap(), None);
    assert!(value_of("{{props.t.x}}", &c).is_err());
}
